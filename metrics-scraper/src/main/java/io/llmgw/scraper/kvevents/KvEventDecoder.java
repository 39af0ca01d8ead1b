package io.llmgw.scraper.kvevents;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import net.openhft.hashing.LongHashFunction;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Decodes vLLM's msgpack {@code KVEventBatch} in both of msgspec's encodings: array-like ({@code [ts, events, dp_rank?]},
 * each event {@code [tag, field, ...]}, as vLLM's own subscriber example declares it) and as maps ({@code {"ts": ..,
 * "events": [..]}}, each event a map whose {@code "type"} is the tag). Fields are read by position in vLLM's order,
 * later fields may be absent and unknown later fields are skipped, so older and newer engines decode alike. Block hashes
 * may be integers (up to 64 bits, signed or not) or bytes (hashed to 64 bits). Bounded: no array longer than
 * {@link #MAX_ELEMENTS} is read.
 */
public final class KvEventDecoder {
  public static final int MAX_ELEMENTS = 1 << 20;

  private KvEventDecoder() {}

  public static KvEventBatch decode(byte[] payload) throws KvEventFormatException {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      KvEventBatch batch = batch(u);
      if (u.hasNext()) {
        throw new KvEventFormatException("bytes after the batch");
      }
      return batch;
    } catch (IOException | RuntimeException e) {
      throw new KvEventFormatException("not msgpack as expected: " + e.getMessage());
    }
  }

  private static KvEventBatch batch(MessageUnpacker u) throws IOException, KvEventFormatException {
    ValueType type = u.getNextFormat().getValueType();
    double ts;
    List<KvEvent> events = null;
    Integer rank = null;
    if (type == ValueType.ARRAY) {
      int n = u.unpackArrayHeader();
      if (n < 2) {
        throw new KvEventFormatException("a batch array needs ts and events, got " + n + " fields");
      }
      ts = number(u, "ts");
      events = events(u);
      if (n > 2) {
        rank = optionalInt(u);
      }
      skip(u, n - 3);
    } else if (type == ValueType.MAP) {
      int n = u.unpackMapHeader();
      ts = Double.NaN;
      for (int i = 0; i < n; i++) {
        switch (key(u)) {
          case "ts" -> ts = number(u, "ts");
          case "events" -> events = events(u);
          case "data_parallel_rank" -> rank = optionalInt(u);
          default -> u.skipValue();
        }
      }
      if (Double.isNaN(ts) || events == null) {
        throw new KvEventFormatException("a batch map needs 'ts' and 'events'");
      }
    } else {
      throw new KvEventFormatException("a batch must be an array or a map, not " + type);
    }
    return new KvEventBatch(ts, events, rank);
  }

  private static List<KvEvent> events(MessageUnpacker u) throws IOException, KvEventFormatException {
    int n = length(u, "events");
    List<KvEvent> out = new ArrayList<>(Math.min(n, 1024));
    for (int i = 0; i < n; i++) {
      out.add(event(u, i));
    }
    return out;
  }

  private static KvEvent event(MessageUnpacker u, int index) throws IOException, KvEventFormatException {
    ValueType type = u.getNextFormat().getValueType();
    if (type == ValueType.ARRAY) {
      int n = u.unpackArrayHeader();
      if (n < 1 || u.getNextFormat().getValueType() != ValueType.STRING) {
        throw new KvEventFormatException("event " + index + " has no tag");
      }
      String tag = u.unpackString();
      return switch (tag) {
        case "BlockStored" -> {
          if (n < 6) {
            throw new KvEventFormatException("event " + index + ": BlockStored needs 5 fields, got " + (n - 1));
          }
          long[] hashes = hashes(u);
          boolean hasParent = !u.tryUnpackNil();
          long parent = hasParent ? hash(u) : 0;
          int[] tokens = tokens(u);
          int blockSize = positive(u, "block_size");
          Long loraId = optionalLong(u);
          String medium = n > 6 ? optionalString(u) : null;
          String loraName = n > 7 ? optionalString(u) : null;
          skip(u, n - 8);
          yield stored(index, hashes, hasParent, parent, tokens, blockSize, loraId, medium, loraName);
        }
        case "BlockRemoved" -> {
          if (n < 2) {
            throw new KvEventFormatException("event " + index + ": BlockRemoved needs its block hashes");
          }
          long[] hashes = hashes(u);
          String medium = n > 2 ? optionalString(u) : null;
          skip(u, n - 3);
          yield new KvEvent.BlockRemoved(hashes, medium);
        }
        case "AllBlocksCleared" -> {
          skip(u, n - 1);
          yield new KvEvent.AllBlocksCleared();
        }
        default -> throw new KvEventFormatException("event " + index + " has an unknown tag '" + tag + "'");
      };
    }
    if (type == ValueType.MAP) {
      return mapEvent(u, index);
    }
    throw new KvEventFormatException("event " + index + " must be an array or a map, not " + type);
  }

  private static KvEvent mapEvent(MessageUnpacker u, int index) throws IOException, KvEventFormatException {
    int n = u.unpackMapHeader();
    String tag = null;
    long[] hashes = null;
    boolean hasParent = false;
    long parent = 0;
    int[] tokens = null;
    int blockSize = 0;
    Long loraId = null;
    String medium = null;
    String loraName = null;
    for (int i = 0; i < n; i++) {
      switch (key(u)) {
        case "type" -> tag = u.unpackString();
        case "block_hashes" -> hashes = hashes(u);
        case "parent_block_hash" -> {
          hasParent = !u.tryUnpackNil();
          parent = hasParent ? hash(u) : 0;
        }
        case "token_ids" -> tokens = tokens(u);
        case "block_size" -> blockSize = positive(u, "block_size");
        case "lora_id" -> loraId = optionalLong(u);
        case "medium" -> medium = optionalString(u);
        case "lora_name" -> loraName = optionalString(u);
        default -> u.skipValue();
      }
    }
    if (tag == null) {
      throw new KvEventFormatException("event " + index + " has no 'type'");
    }
    return switch (tag) {
      case "BlockStored" -> {
        if (hashes == null || tokens == null || blockSize == 0) {
          throw new KvEventFormatException("event " + index + ": BlockStored needs block_hashes, token_ids and "
              + "block_size");
        }
        yield stored(index, hashes, hasParent, parent, tokens, blockSize, loraId, medium, loraName);
      }
      case "BlockRemoved" -> {
        if (hashes == null) {
          throw new KvEventFormatException("event " + index + ": BlockRemoved needs block_hashes");
        }
        yield new KvEvent.BlockRemoved(hashes, medium);
      }
      case "AllBlocksCleared" -> new KvEvent.AllBlocksCleared();
      default -> throw new KvEventFormatException("event " + index + " has an unknown type '" + tag + "'");
    };
  }

  private static KvEvent.BlockStored stored(int index, long[] hashes, boolean hasParent, long parent, int[] tokens,
      int blockSize, Long loraId, String medium, String loraName) throws KvEventFormatException {
    if ((long) hashes.length * blockSize != tokens.length) {
      throw new KvEventFormatException("event " + index + ": " + hashes.length + " blocks of " + blockSize
          + " tokens but " + tokens.length + " token ids");
    }
    return new KvEvent.BlockStored(hashes, hasParent, parent, tokens, blockSize, loraId, medium, loraName);
  }

  private static long[] hashes(MessageUnpacker u) throws IOException, KvEventFormatException {
    int n = length(u, "block_hashes");
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = hash(u);
    }
    return out;
  }

  /** An integer hash as its 64 bits; a bytes hash (newer vLLM's) hashed to 64 bits. */
  private static long hash(MessageUnpacker u) throws IOException, KvEventFormatException {
    MessageFormat f = u.getNextFormat();
    if (f == MessageFormat.UINT64) {
      return u.unpackBigInteger().longValue(); // above Long.MAX_VALUE or not: the same 64 bits
    }
    if (f.getValueType() == ValueType.INTEGER) {
      return u.unpackLong();
    }
    if (f.getValueType() == ValueType.BINARY) {
      int n = u.unpackBinaryHeader();
      if (n > 1024) {
        throw new KvEventFormatException("a block hash of " + n + " bytes");
      }
      return LongHashFunction.xx().hashBytes(u.readPayload(n));
    }
    throw new KvEventFormatException("a block hash must be an integer or bytes, not " + f.getValueType());
  }

  private static int[] tokens(MessageUnpacker u) throws IOException, KvEventFormatException {
    int n = length(u, "token_ids");
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = u.unpackInt();
    }
    return out;
  }

  private static int length(MessageUnpacker u, String field) throws IOException, KvEventFormatException {
    if (u.getNextFormat().getValueType() != ValueType.ARRAY) {
      throw new KvEventFormatException("'" + field + "' must be an array");
    }
    int n = u.unpackArrayHeader();
    if (n > MAX_ELEMENTS) {
      throw new KvEventFormatException("'" + field + "' holds " + n + " elements, over " + MAX_ELEMENTS);
    }
    return n;
  }

  private static int positive(MessageUnpacker u, String field) throws IOException, KvEventFormatException {
    int v = u.unpackInt();
    if (v < 1 || v > 1 << 16) {
      throw new KvEventFormatException("'" + field + "' must be within 1..65536, got " + v);
    }
    return v;
  }

  private static double number(MessageUnpacker u, String field) throws IOException, KvEventFormatException {
    ValueType t = u.getNextFormat().getValueType();
    if (t == ValueType.FLOAT) {
      return u.unpackDouble();
    }
    if (t == ValueType.INTEGER) {
      return u.unpackLong();
    }
    throw new KvEventFormatException("'" + field + "' must be a number, not " + t);
  }

  private static String key(MessageUnpacker u) throws IOException, KvEventFormatException {
    if (u.getNextFormat().getValueType() != ValueType.STRING) {
      throw new KvEventFormatException("a map key must be a string");
    }
    return u.unpackString();
  }

  private static Long optionalLong(MessageUnpacker u) throws IOException {
    return u.tryUnpackNil() ? null : u.unpackLong();
  }

  private static Integer optionalInt(MessageUnpacker u) throws IOException {
    return u.tryUnpackNil() ? null : u.unpackInt();
  }

  private static String optionalString(MessageUnpacker u) throws IOException {
    return u.tryUnpackNil() ? null : u.unpackString();
  }

  private static void skip(MessageUnpacker u, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      u.skipValue();
    }
  }
}
