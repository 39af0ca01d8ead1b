package io.llmgw.extproc.body;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads token usage from a response as it streams past, in bounded memory and without copying the chunks that pass:
 * from the SSE event that carries {@code usage} (with {@code stream_options.include_usage}), or from the tail of a JSON
 * body, where OpenAI-style servers put {@code usage}. An SSE chunk's lines are read in the array gRPC parsed it into
 * ({@link ArrayPieces}: nothing copied, nothing allocated); only a line split across chunks is kept, up to
 * {@link #MAX_SSE_LINE} bytes (a longer one is skipped to its end), and only the line that names {@code usage} is ever
 * parsed. A JSON body keeps references to its last chunks and is read once, at its end. Unknown usage is simply null;
 * nothing here can fail the response.
 */
public final class UsageSniffer {
  private static final byte[] USAGE = "\"usage\"".getBytes(StandardCharsets.US_ASCII);
  private static final int[] USAGE_SKIP = horspoolSkips(USAGE);
  private static final byte[] DONE = "data: [DONE]".getBytes(StandardCharsets.US_ASCII);
  private static final int MAX_SSE_LINE = 64 << 10;
  private static final int JSON_TAIL = 8 << 10;
  /** Per thread (the gRPC event loops): where a line split across chunks is joined to be read. */
  private static final ThreadLocal<byte[]> JOINED = ThreadLocal.withInitial(() -> new byte[MAX_SSE_LINE]);

  private final boolean sse;
  /** SSE: the unfinished line the last chunk ended with. */
  private ByteString carry = ByteString.EMPTY;
  /** SSE: the unfinished line grew past {@link #MAX_SSE_LINE}; what is left of it is skipped. */
  private boolean overlong;
  /** SSE only (a JSON body keeps its chunks instead): made with the sniffer, not per chunk. */
  private final ArrayPieces ssePieces;
  /** JSON: the last chunks, at least {@link #JSON_TAIL} bytes of them when the body is that long. */
  private final ArrayDeque<ByteString> tail = new ArrayDeque<>(2);
  private int tailBytes;
  private TokenUsage usage;
  private int dataEvents;

  public UsageSniffer(String contentType) {
    this.sse = contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
    this.ssePieces = sse ? new ArrayPieces(this::ssePiece) : null;
  }

  public void accept(ByteString chunk, boolean endOfStream) {
    if (sse) {
      acceptSse(chunk, endOfStream);
    } else {
      acceptJson(chunk, endOfStream);
    }
  }

  private void acceptJson(ByteString chunk, boolean endOfStream) {
    if (!chunk.isEmpty()) {
      tail.addLast(chunk);
      tailBytes += chunk.size();
      while (tailBytes - tail.peekFirst().size() >= JSON_TAIL) {
        tailBytes -= tail.removeFirst().size();
      }
    }
    if (endOfStream) {
      ByteString whole = ByteString.EMPTY;
      for (ByteString c : tail) {
        whole = whole.concat(c); // a rope: only the tail below is copied
      }
      byte[] last = whole.substring(Math.max(0, whole.size() - JSON_TAIL)).toByteArray();
      tail.clear();
      int at = lastIndexOf(last, USAGE);
      TokenUsage u = at < 0 ? null : usageObjectAt(last, at + USAGE.length, last.length);
      if (u != null) {
        usage = u;
      }
    }
  }

  private void acceptSse(ByteString chunk, boolean endOfStream) {
    ssePieces.readAll(chunk);
    if (endOfStream) {
      if (!carry.isEmpty() && !overlong) { // the last line, unterminated
        byte[] joined = JOINED.get();
        carry.copyTo(joined, 0);
        sseLine(joined, 0, carry.size());
      }
      carry = ByteString.EMPTY;
      overlong = false;
    }
  }

  /** Reads the lines of {@code d[from, end)} where they lie; the line the piece ends inside is carried to the next. */
  private void ssePiece(byte[] d, int from, int end) {
    int start = from;
    if (!carry.isEmpty() || overlong) {
      int newline = indexOfNewline(d, from, end);
      if (newline < 0) {
        carry(d, from, end);
        return;
      }
      int carried = carry.size();
      if (!overlong && carried + newline - from <= MAX_SSE_LINE) {
        byte[] joined = JOINED.get();
        carry.copyTo(joined, 0);
        System.arraycopy(d, from, joined, carried, newline - from);
        sseLine(joined, 0, carried + newline - from);
      }
      carry = ByteString.EMPTY;
      overlong = false;
      start = newline + 1;
    }
    for (int i = start; i < end; i++) {
      if (d[i] == '\n') {
        sseLine(d, start, i);
        start = i + 1;
      }
    }
    carry(d, start, end);
  }

  /** Keeps the start of a line that goes on in the next piece, unless it is already longer than a line may be. */
  private void carry(byte[] d, int from, int end) {
    if (from == end || overlong) {
      return;
    }
    if (carry.size() + end - from > MAX_SSE_LINE) {
      carry = ByteString.EMPTY;
      overlong = true;
      return;
    }
    carry = carry.concat(ByteString.copyFrom(d, from, end - from));
  }

  private static int indexOfNewline(byte[] d, int from, int end) {
    for (int i = from; i < end; i++) {
      if (d[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  public TokenUsage usage() {
    return usage;
  }

  /** Whether the response is a server-sent event stream (tokens arrive as they are generated). */
  public boolean streaming() {
    return sse;
  }

  /** SSE {@code data:} events other than {@code [DONE]}: the tokens streamed when no usage is reported. */
  public int dataEvents() {
    return dataEvents;
  }

  private void sseLine(byte[] data, int start, int end) {
    if (end - start > 5 && data[start] == 'd') {
      if (!regionEquals(data, start, end, DONE)) {
        dataEvents++;
      }
      int at = indexOfUsage(data, start, end);
      TokenUsage u = at < 0 ? null : usageObjectAt(data, at + USAGE.length, end);
      if (u != null) {
        usage = u;
      }
    }
  }

  /**
   * Reads {@code : { "prompt_tokens": n, "completion_tokens": m, ... }} (the Responses API's {@code input_tokens} and
   * {@code output_tokens} alike) starting after the {@code "usage"} key: the two counts at the object's own level,
   * and {@code cached_tokens} inside its {@code prompt_tokens_details} (or {@code input_tokens_details}), whatever else
   * it nests; null when the object does not close within the bytes.
   * No parser is made for it (one per response cost more than the rest of the response path).
   */
  private static TokenUsage usageObjectAt(byte[] d, int from, int end) {
    int i = skipSpace(d, from, end);
    if (i < end && d[i] == ':') {
      i = skipSpace(d, i + 1, end);
    }
    if (i >= end || d[i] != '{') {
      return null;
    }
    long prompt = -1;
    long completion = -1;
    long cached = -1;
    boolean inDetails = false;
    int depth = 0;
    for (; i < end; i++) {
      byte c = d[i];
      if (c == '"') {
        int close = closingQuote(d, i + 1, end);
        if (close < 0) {
          return null;
        }
        boolean counted = depth == 1 || depth == 2 && inDetails;
        int value = counted ? skipSpace(d, close + 1, end) : end;
        if (value < end && d[value] == ':') {
          value = skipSpace(d, value + 1, end);
          if (depth == 2) {
            if (regionIs(d, i + 1, close, CACHED_TOKENS)) {
              // a garbage cache count is no count, but leaves the usage itself believable
              cached = value < end && wholeNumberEnds(d, value, end) ? digits(d, value, end) : -1;
            }
            i = close;
            continue;
          } else if (regionIs(d, i + 1, close, PROMPT_TOKENS) || regionIs(d, i + 1, close, INPUT_TOKENS)) {
            prompt = digits(d, value, end);
          } else if (regionIs(d, i + 1, close, COMPLETION_TOKENS) || regionIs(d, i + 1, close, OUTPUT_TOKENS)) {
            completion = digits(d, value, end);
          } else {
            inDetails = regionIs(d, i + 1, close, PROMPT_DETAILS) || regionIs(d, i + 1, close, INPUT_DETAILS);
            i = close;
            continue;
          }
          if (value >= end) {
            return null; // cut off: no usage seen
          }
          if (!wholeNumberEnds(d, value, end)) {
            return TokenUsage.MALFORMED; // a count that is negative, fractional or not a number
          }
        }
        i = close;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return prompt < 0 && completion < 0 ? null
            : new TokenUsage(Math.max(0, prompt), Math.max(0, completion), cached);
      }
    }
    return null;
  }

  private static final byte[] PROMPT_TOKENS = "prompt_tokens".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] COMPLETION_TOKENS = "completion_tokens".getBytes(StandardCharsets.US_ASCII);
  /** The Responses API's names for the same two counts. */
  private static final byte[] INPUT_TOKENS = "input_tokens".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] OUTPUT_TOKENS = "output_tokens".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CACHED_TOKENS = "cached_tokens".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PROMPT_DETAILS = "prompt_tokens_details".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INPUT_DETAILS = "input_tokens_details".getBytes(StandardCharsets.US_ASCII);

  private static int skipSpace(byte[] d, int i, int end) {
    while (i < end && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n')) {
      i++;
    }
    return i;
  }

  /** The index of the quote that closes a string whose text starts at {@code i}, or -1. */
  private static int closingQuote(byte[] d, int i, int end) {
    for (; i < end; i++) {
      if (d[i] == '\\') {
        i++;
      } else if (d[i] == '"') {
        return i;
      }
    }
    return -1;
  }

  private static boolean regionIs(byte[] d, int start, int end, byte[] word) {
    return end - start == word.length && Arrays.equals(d, start, end, word, 0, word.length);
  }

  /** A whole number of at most 18 digits starting at {@code i}, or -1 when none is there. */
  /** Whether the value at {@code i} is digits alone, up to the next separator. */
  private static boolean wholeNumberEnds(byte[] d, int i, int end) {
    int j = i;
    while (j < end && d[j] >= '0' && d[j] <= '9') {
      j++;
    }
    return j > i && (j == end || d[j] == ',' || d[j] == '}' || d[j] == ' ' || d[j] == '\n' || d[j] == '\r'
        || d[j] == '\t');
  }

  private static long digits(byte[] d, int i, int end) {
    long n = 0;
    int start = i;
    while (i < end && i - start < 18 && d[i] >= '0' && d[i] <= '9') {
      n = n * 10 + (d[i++] - '0');
    }
    return i == start ? -1 : n;
  }

  private static boolean regionEquals(byte[] data, int start, int end, byte[] prefix) {
    return end - start >= prefix.length && Arrays.equals(data, start, start + prefix.length, prefix, 0, prefix.length);
  }

  /** Where {@code "usage"} starts in the line, by Horspool's skips: most lines are passed seven bytes at a time. */
  private static int indexOfUsage(byte[] data, int start, int end) {
    int last = USAGE.length - 1;
    for (int i = start; i <= end - USAGE.length; i += USAGE_SKIP[data[i + last] & 0xFF]) {
      if (data[i + last] == '"' && regionEquals(data, i, end, USAGE)) {
        return i;
      }
    }
    return -1;
  }

  private static int[] horspoolSkips(byte[] needle) {
    int[] skip = new int[256];
    Arrays.fill(skip, needle.length);
    for (int j = 0; j < needle.length - 1; j++) {
      skip[needle[j] & 0xFF] = needle.length - 1 - j;
    }
    return skip;
  }

  private static int lastIndexOf(byte[] data, byte[] needle) {
    outer : for (int i = data.length - needle.length; i >= 0; i--) {
      for (int j = 0; j < needle.length; j++) {
        if (data[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
