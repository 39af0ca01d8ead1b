package io.llmgw.chattemplate;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tokenizes a rendered prompt as the model's tokenizer does, piece by piece: Hugging Face's tokenizers cut the text at
 * its added tokens (the special tokens a chat template writes) before anything else, leftmost and longest first, and
 * tokenize the text between them each on its own, so the pieces' ids, cached ({@link SegmentCache}), make the whole's.
 * A conversation's earlier turns are then not tokenized again. Only tokens that touch nothing around them split
 * (not stripping their neighbours' spaces, not normalised); a model whose tokenizer treats the pieces otherwise (one
 * that adds a prefix space to the first piece only, say) fails the check made at load, and its prompts are tokenized
 * whole.
 */
final class SegmentedEncoder {
  private static final int MIN_CACHED_CHARS = 32;

  private final long handle;
  private final Map<Character, String[]> byFirstChar = new HashMap<>();
  private final Map<String, Integer> ids = new HashMap<>();
  private final SegmentCache cache;
  private final boolean segmented;

  SegmentedEncoder(HuggingFaceTokenizer tokenizer, Path tokenizerJson, long cacheBytes) {
    this.handle = tokenizer.getHandle();
    this.cache = new SegmentCache(cacheBytes);
    Map<Character, List<String>> grouped = new HashMap<>();
    for (Map.Entry<String, Integer> e : splittingTokens(tokenizerJson).entrySet()) {
      ids.put(e.getKey(), e.getValue());
      grouped.computeIfAbsent(e.getKey().charAt(0), c -> new ArrayList<>()).add(e.getKey());
    }
    grouped.forEach((c, tokens) -> byFirstChar.put(c, tokens.stream()
        .sorted(Comparator.comparingInt(String::length).reversed()).toArray(String[]::new)));
    this.segmented = !ids.isEmpty() && piecesMakeTheWhole();
  }

  /** False when the model's prompts are tokenized whole (no splitting tokens, or the check at load failed). */
  boolean segmented() {
    return segmented;
  }

  int[] encode(String text) {
    return segmented ? encodePieces(text, true) : whole(text);
  }

  private int[] encodePieces(String text, boolean cached) {
    int[] out = new int[Math.max(16, text.length() / 3)];
    int n = 0;
    int start = 0;
    int i = 0;
    while (i < text.length()) {
      String token = tokenAt(text, i);
      if (token == null) {
        i++;
        continue;
      }
      if (i > start) {
        int[] piece = piece(text.substring(start, i), cached);
        out = fit(out, n + piece.length + 1);
        System.arraycopy(piece, 0, out, n, piece.length);
        n += piece.length;
      }
      out = fit(out, n + 1);
      out[n++] = ids.get(token);
      i += token.length();
      start = i;
    }
    if (start < text.length()) {
      int[] piece = piece(text.substring(start), cached);
      out = fit(out, n + piece.length);
      System.arraycopy(piece, 0, out, n, piece.length);
      n += piece.length;
    }
    return Arrays.copyOf(out, n);
  }

  private static int[] fit(int[] a, int size) {
    return size <= a.length ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
  }

  private String tokenAt(String text, int i) {
    String[] candidates = byFirstChar.get(text.charAt(i));
    if (candidates != null) {
      for (String t : candidates) {
        if (text.startsWith(t, i)) {
          return t;
        }
      }
    }
    return null;
  }

  private int[] piece(String text, boolean cached) {
    if (!cached || text.length() < MIN_CACHED_CHARS) {
      return whole(text);
    }
    int[] known = cache.get(text);
    if (known == null) {
      known = whole(text);
      cache.put(text, known);
    }
    return known;
  }

  /** The tokenizer's own ids for the text, no special tokens added; straight through JNI, ids only. */
  int[] whole(String text) {
    long encoding = TokenizersLibrary.LIB.encode(handle, text, false);
    try {
      long[] longs = TokenizersLibrary.LIB.getTokenIds(encoding);
      int[] out = new int[longs.length];
      for (int k = 0; k < longs.length; k++) {
        out[k] = (int) longs[k];
      }
      return out;
    } finally {
      TokenizersLibrary.LIB.deleteEncoding(encoding);
    }
  }

  /** Probes built from the model's own splitting tokens: tokenized in pieces and whole, they must agree. */
  private boolean piecesMakeTheWhole() {
    List<String> tokens = new ArrayList<>(ids.keySet());
    tokens.sort(Comparator.naturalOrder());
    List<String> probes = new ArrayList<>();
    for (int k = 0; k < Math.min(8, tokens.size()); k++) {
      String t = tokens.get(k * tokens.size() / Math.min(8, tokens.size()));
      probes.add("Hello world" + t + " leading space and 'quotes'\n" + t + "\n\nnaïve 😀 東京 " + t + "x  y  ");
      probes.add(t + "  two spaces first" + t + t + "\ttab" + t);
      probes.add(" A first piece with a space " + t + "second piece");
    }
    for (String probe : probes) {
      if (!Arrays.equals(encodePieces(probe, false), whole(probe))) {
        return false;
      }
    }
    return true;
  }

  /** The added tokens that cut text with no effect on it around them, read as a stream (the file may be large). */
  private static Map<String, Integer> splittingTokens(Path tokenizerJson) {
    Map<String, Integer> out = new HashMap<>();
    try (JsonParser p = new JsonFactory().createParser(tokenizerJson.toFile())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return out;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!field.equals("added_tokens") || value != JsonToken.START_ARRAY) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() == JsonToken.START_OBJECT) {
          AddedToken t = AddedToken.read(p);
          if (t.splitsCleanly()) {
            out.put(t.content(), t.id());
          }
        }
      }
    } catch (IOException e) {
      return Map.of(); // DJL read the file; what it cannot say here only costs the reuse
    }
    return out;
  }

  private record AddedToken(String content, int id, boolean plain) {
    boolean splitsCleanly() {
      return plain && content != null && !content.isEmpty() && id >= 0;
    }

    static AddedToken read(JsonParser p) throws IOException {
      String content = null;
      int id = -1;
      boolean plain = true;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "content" -> content = v == JsonToken.VALUE_STRING ? p.getText() : null;
          case "id" -> id = v == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : -1;
          case "lstrip", "rstrip", "single_word", "normalized" -> plain &= v == JsonToken.VALUE_FALSE;
          default -> p.skipChildren();
        }
      }
      return new AddedToken(content, id, plain);
    }
  }
}
