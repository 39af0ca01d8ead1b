package io.llmgw.extproc.body;

import com.google.protobuf.ByteString;
import io.llmgw.picker.SessionKey;
import java.util.HashSet;
import java.util.Set;

/**
 * Finds the top-level {@code model} of a JSON body fed in chunks of any size, and validates the whole body on the way
 * (RFC 8259: structure, strings with their escapes and UTF-8, numbers, literals), without building a tree and without
 * decoding a string it does not keep: a prompt's text is only scanned for its closing quote. Only top-level keys and
 * the values of {@code model} and {@code user} are decoded, and a key OpenAI's APIs define is recognised by its bytes
 * instead ({@link KnownKeys}). A top-level key that appears twice is refused: JSON readers differ on which one wins
 * (the scan would route on the first, a Python server serves the last). Not thread-safe; one per request.
 */
public final class ModelExtractor {
  /** Containers nested deeper than this (the root object is level 1) are refused; real requests stay far below. */
  public static final int MAX_NESTING = 128;

  private final JsonByteScanner scan = new JsonByteScanner(new Events());
  private final ArrayPieces pieces = new ArrayPieces(this::scanPiece);
  private boolean rootSeen;
  private String pendingField;
  private String model;
  private String user;
  private String cacheSalt;
  private int maxTokens;
  private int maxCompletionTokens;
  private long modelStart = -1;
  private long modelEnd = -1;
  private long promptStart = -1;
  private long promptEnd = -1;
  private int promptDepth = -1;
  private BodyProblem problem;
  /** The known top-level keys seen, one bit each ({@link KnownKeys}); the others in a set made when one comes. */
  private long knownKeysSeen;
  private Set<String> otherKeys;

  /**
   * Feeds the next chunk; cheap to call with empty chunks. Stops scanning after the first problem. A chunk backed by an
   * array (what gRPC parses a body frame into) is scanned in that array, never copied: a long prompt's bytes are read
   * once, by the scan.
   */
  public void feed(ByteString chunk) {
    if (problem != null || chunk.isEmpty()) {
      return;
    }
    pieces.readAll(chunk);
  }

  private void scanPiece(byte[] b, int from, int end) {
    if (problem == null) {
      scan.feed(b, from, end - from);
    }
  }

  /** Ends the input: what the body holds for routing, or why it cannot be routed. */
  public BodyScan finish() {
    if (problem == null) {
      scan.end();
    }
    if (problem != null) {
      return problem;
    }
    if (model == null) {
      return BodyProblem.NO_MODEL;
    }
    return new ExtractedBody(model, modelStart, modelEnd, promptStart, Math.max(promptEnd, promptStart), user,
        maxCompletionTokens > 0 ? maxCompletionTokens : maxTokens, cacheSalt);
  }

  private boolean isPromptField() {
    return "messages".equals(pendingField) || "prompt".equals(pendingField);
  }

  /** Whether this top-level key comes for the first time. */
  private boolean firstTime(String key) {
    int known = KnownKeys.of(key);
    if (known >= 0) {
      long bit = 1L << known;
      boolean first = (knownKeysSeen & bit) == 0;
      knownKeysSeen |= bit;
      return first;
    }
    if (otherKeys == null) {
      otherKeys = new HashSet<>();
    }
    return otherKeys.add(key);
  }

  /** What the scan reports, in body order: the extraction's rules over the tokens. */
  private final class Events implements JsonEvents {
    @Override
    public void fail(BodyProblem p) {
      problem = p;
    }

    @Override
    public boolean failed() {
      return problem != null;
    }

    @Override
    public void containerStart(int depthBefore, boolean object, long offset) {
      if (!root(object)) {
        return;
      }
      if (depthBefore == 1 && "model".equals(pendingField) && model == null) {
        fail(BodyProblem.MODEL_NOT_A_STRING);
        return;
      }
      if (depthBefore == 1 && isPromptField()) {
        promptStart = offset;
        promptDepth = depthBefore;
      }
      pendingField = null;
    }

    @Override
    public void containerEnd(int depthAfter, long endOffset) {
      if (depthAfter == promptDepth) {
        promptEnd = endOffset;
        promptDepth = -1;
      }
    }

    /** Top-level keys, and the values of {@code model} and {@code user} (at most what a session id may be). */
    @Override
    public int captureLimit(int depth, boolean key) {
      if (depth != 1) {
        return 0;
      }
      if (key || "model".equals(pendingField) && model == null) {
        return Integer.MAX_VALUE;
      }
      // six bytes at most per character (an escape): longer than this is longer than a session id may be
      return "user".equals(pendingField) ? SessionKey.MAX_LENGTH * 6
          : "cache_salt".equals(pendingField) ? ExtractedBody.MAX_SALT_CHARS * 6 : 0;
    }

    @Override
    public void key(int depth, String name) {
      if (depth == 1) {
        pendingField = name;
        if (!firstTime(name)) {
          fail(BodyProblem.DUPLICATE_KEY);
        }
      }
    }

    @Override
    public void string(int depth, String decoded, long start, long end) {
      if (!root(false) || depth != 1) {
        return;
      }
      if ("model".equals(pendingField) && model == null) {
        if (decoded.isEmpty()) {
          fail(BodyProblem.MODEL_NOT_A_STRING);
          return;
        }
        model = decoded;
        modelStart = start;
        modelEnd = end;
      } else if ("user".equals(pendingField) && decoded != null && decoded.length() <= SessionKey.MAX_LENGTH) {
        user = decoded;
      } else if ("cache_salt".equals(pendingField)) {
        cacheSalt = decoded != null && decoded.length() <= ExtractedBody.MAX_SALT_CHARS ? decoded
            : ExtractedBody.LONG_SALT;
      } else if (isPromptField() && promptStart < 0) {
        promptStart = start;
        promptEnd = end;
      }
      pendingField = null;
    }

    @Override
    public void number(int depth, boolean integral, long value) {
      if (!root(false) || depth != 1) {
        return;
      }
      if ("model".equals(pendingField) && model == null) {
        fail(BodyProblem.MODEL_NOT_A_STRING);
        return;
      }
      // what fits an int and is positive counts; anything else is unsaid (the pod answers for what it accepts)
      int positive = integral && value > 0 && value <= Integer.MAX_VALUE ? (int) value : 0;
      if ("max_tokens".equals(pendingField)) {
        maxTokens = positive;
      } else if ("max_completion_tokens".equals(pendingField)) {
        maxCompletionTokens = positive;
      }
      pendingField = null;
    }

    @Override
    public void literal(int depth) {
      if (!root(false) || depth != 1) {
        return;
      }
      if ("model".equals(pendingField) && model == null) {
        fail(BodyProblem.MODEL_NOT_A_STRING);
        return;
      }
      pendingField = null;
    }

    /** The body's first token: only an object may open it (an array says so at once, a scalar when it ends). */
    private boolean root(boolean object) {
      if (!rootSeen) {
        rootSeen = true;
        if (!object) {
          fail(BodyProblem.NOT_AN_OBJECT);
          return false;
        }
      }
      return true;
    }
  }
}
