package io.llmgw.extproc.body;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteBufferFeeder;
import io.llmgw.picker.SessionKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

/**
 * The oracle for {@link ModelExtractor}: what the EPP used to run, on Jackson's non-blocking parser, which decodes every
 * string it passes. The byte scanner that replaced it must agree with it on every body. Finds the top-level
 * {@code model} of a JSON body fed in chunks of any size, without building a tree: a non-blocking token scan that also
 * validates the whole body. A top-level key that appears twice is refused: JSON readers differ on
 * which one wins (the scan would route on the first, a Python server serves the last). Not thread-safe; one per request.
 */
final class JacksonModelExtractor {
  /** Containers nested deeper than this (the root object is level 1) are refused; real requests stay far below. */
  static final int MAX_NESTING = ModelExtractor.MAX_NESTING;

  private static final JsonFactory FACTORY = new JsonFactory();

  private final JsonParser parser;
  private final ByteBufferFeeder feeder;
  private int depth;
  private boolean rootSeen;
  private boolean rootClosed;
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
  private final Set<String> topLevelKeys = new HashSet<>();

  JacksonModelExtractor() {
    try {
      parser = FACTORY.createNonBlockingByteBufferParser();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    feeder = (ByteBufferFeeder) parser.getNonBlockingInputFeeder();
  }

  /** Feeds the next chunk; cheap to call with empty chunks. Stops scanning after the first problem. */
  public void feed(ByteBuffer chunk) {
    if (problem != null || !chunk.hasRemaining()) {
      return;
    }
    try {
      feeder.feedInput(chunk);
      drain();
    } catch (IOException e) {
      problem = BodyProblem.NOT_JSON;
    }
  }

  /** Ends the input; the body is either an {@link ExtractedBody} or a {@link BodyProblem}. */
  public BodyScan finish() {
    if (problem == null) {
      try {
        feeder.endOfInput();
        drain();
        if (!rootClosed) {
          problem = BodyProblem.NOT_JSON;
        }
      } catch (IOException e) {
        problem = BodyProblem.NOT_JSON;
      }
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

  private void drain() throws IOException {
    JsonToken t;
    while ((t = parser.nextToken()) != null && t != JsonToken.NOT_AVAILABLE) {
      if (rootClosed) {
        problem = BodyProblem.NOT_JSON;
        return;
      }
      if (!rootSeen) {
        rootSeen = true;
        if (t != JsonToken.START_OBJECT) {
          problem = BodyProblem.NOT_AN_OBJECT;
          return;
        }
      }
      switch (t) {
        case START_OBJECT, START_ARRAY -> {
          if (depth == 1 && "model".equals(pendingField) && model == null) {
            problem = BodyProblem.MODEL_NOT_A_STRING;
            return;
          }
          if (depth == 1 && isPromptField()) {
            promptStart = tokenStart();
            promptDepth = depth;
          }
          pendingField = null;
          if (++depth > MAX_NESTING) {
            problem = BodyProblem.TOO_DEEP;
            return;
          }
        }
        case END_OBJECT, END_ARRAY -> {
          depth--;
          if (depth == promptDepth) {
            promptEnd = parser.currentLocation().getByteOffset();
            promptDepth = -1;
          }
          if (depth == 0) {
            rootClosed = true;
          }
        }
        case FIELD_NAME -> {
          if (depth == 1) {
            pendingField = parser.currentName();
            if (!topLevelKeys.add(pendingField)) {
              problem = BodyProblem.DUPLICATE_KEY;
              return;
            }
          }
        }
        default -> {
          if (depth == 1) {
            scalarAtTop(t);
            if (problem != null) {
              return; // the first problem is the answer, however the body was cut into chunks
            }
          }
        }
      }
    }
  }

  /** The number as an int when it is one and positive, else 0 (the pod answers for what it accepts). */
  private int positiveInt() throws IOException {
    return parser.getNumberType() == JsonParser.NumberType.INT && parser.getIntValue() > 0 ? parser.getIntValue() : 0;
  }

  /** The non-blocking parser reports a token's location one byte past its first character (quote or bracket). */
  private long tokenStart() {
    return parser.currentTokenLocation().getByteOffset() - 1;
  }

  private boolean isPromptField() {
    return "messages".equals(pendingField) || "prompt".equals(pendingField);
  }

  private void scalarAtTop(JsonToken t) throws IOException {
    if ("model".equals(pendingField) && model == null) {
      if (t != JsonToken.VALUE_STRING || parser.getText().isEmpty()) {
        problem = BodyProblem.MODEL_NOT_A_STRING;
        return;
      }
      model = parser.getText();
      modelStart = tokenStart();
      modelEnd = parser.currentLocation().getByteOffset();
    } else if (t == JsonToken.VALUE_NUMBER_INT && "max_tokens".equals(pendingField)) {
      maxTokens = positiveInt();
    } else if (t == JsonToken.VALUE_NUMBER_INT && "max_completion_tokens".equals(pendingField)) {
      maxCompletionTokens = positiveInt();
    } else if ("user".equals(pendingField) && t == JsonToken.VALUE_STRING
        && parser.getTextLength() <= SessionKey.MAX_LENGTH) {
      user = parser.getText();
    } else if ("cache_salt".equals(pendingField) && t == JsonToken.VALUE_STRING) {
      cacheSalt = parser.getTextLength() <= ExtractedBody.MAX_SALT_CHARS ? parser.getText() : ExtractedBody.LONG_SALT;
    } else if (isPromptField() && t == JsonToken.VALUE_STRING && promptStart < 0) {
      promptStart = tokenStart();
      promptEnd = parser.currentLocation().getByteOffset();
    }
    pendingField = null;
  }
}
