package io.llmgw.extproc.body;

import java.nio.charset.StandardCharsets;

/**
 * A push scanner for one JSON text (RFC 8259) fed as byte pieces of any size: it checks the grammar, string escapes,
 * UTF-8 and nesting, and reports each value to its {@link JsonEvents} in body order with its byte offsets. A string is decoded
 * only when the events ask for it at its start ({@link JsonEvents#captureLimit}); every other string is only scanned for its
 * end, in a loop over plain ASCII bytes. After the first problem it reports nothing more.
 */
final class JsonByteScanner {
  private static final int VALUE = 0;
  private static final int VALUE_OR_CLOSE = 1;
  private static final int KEY_OR_CLOSE = 2;
  private static final int KEY = 3;
  private static final int COLON = 4;
  private static final int AFTER_VALUE = 5;
  private static final int DONE = 6;
  private static final int STRING = 7;
  private static final int ESCAPE = 8;
  private static final int UNICODE = 9;
  private static final int NUMBER = 10;
  private static final int LITERAL = 11;

  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

  private final byte[] containers = new byte[ModelExtractor.MAX_NESTING + 1];
  private int depth;
  private int state = VALUE;
  private long consumed;

  private boolean stringIsKey;
  private long stringStart;
  private int utf8Continuations;
  private int unicodeDigits;
  private final CapturedString capture = new CapturedString();
  private final JsonNumber number = new JsonNumber();

  private byte[] literal;
  private int literalAt;

  private final JsonEvents events;

  JsonByteScanner(JsonEvents events) {
    this.events = events;
  }

  void feed(byte[] b, int from, int length) {
    int end = from + length;
    long base = consumed - from;
    int i = from;
    while (i < end && !events.failed()) {
      i = switch (state) {
        case STRING -> string(b, i, end, base);
        case NUMBER -> number(b, i);
        default -> structural(b, i, base);
      };
    }
    consumed += length;
  }

  /** The input ended: anything but a closed root is not JSON (a bare root number included, as Jackson has it). */
  void end() {
    if (!events.failed() && state != DONE) {
      events.fail(BodyProblem.NOT_JSON);
    }
  }

  private int structural(byte[] b, int i, long base) {
    byte c = b[i];
    switch (state) {
      case ESCAPE -> {
        capture.keep(c);
        escape(c);
        return i + 1;
      }
      case UNICODE -> {
        capture.keep(c);
        unicodeDigit(c);
        return i + 1;
      }
      case LITERAL -> {
        literalByte(c);
        return i + 1;
      }
      default -> {}
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      return i + 1;
    }
    switch (state) {
      case VALUE, VALUE_OR_CLOSE -> {
        if (c == ']' && state == VALUE_OR_CLOSE) {
          close(c, base + i);
        } else {
          startValue(c, base + i);
        }
      }
      case KEY_OR_CLOSE, KEY -> {
        if (c == '"') {
          startString(true, base + i);
        } else if (c == '}' && state == KEY_OR_CLOSE) {
          close(c, base + i);
        } else {
          events.fail(BodyProblem.NOT_JSON);
        }
      }
      case COLON -> {
        if (c == ':') {
          state = VALUE;
        } else {
          events.fail(BodyProblem.NOT_JSON);
        }
      }
      case AFTER_VALUE -> {
        if (c == ',') {
          state = containers[depth - 1] == '{' ? KEY : VALUE;
        } else if (c == '}' || c == ']') {
          close(c, base + i);
        } else {
          events.fail(BodyProblem.NOT_JSON);
        }
      }
      default -> events.fail(BodyProblem.NOT_JSON); // DONE: something after the root value
    }
    return i + 1;
  }

  private void startValue(byte c, long offset) {
    switch (c) {
      case '{', '[' -> {
        boolean object = c == '{';
        events.containerStart(depth, object, offset);
        if (events.failed()) {
          return;
        }
        if (depth == ModelExtractor.MAX_NESTING) {
          events.fail(BodyProblem.TOO_DEEP);
          return;
        }
        containers[depth++] = c;
        state = object ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
      }
      case '"' -> startString(false, offset);
      case 't' -> startLiteral(TRUE);
      case 'f' -> startLiteral(FALSE);
      case 'n' -> startLiteral(NULL);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          state = NUMBER;
          number.start(c);
        } else {
          events.fail(BodyProblem.NOT_JSON);
        }
      }
    }
  }

  private void close(byte c, long offset) {
    byte open = containers[depth - 1];
    if ((c == '}') != (open == '{')) {
      events.fail(BodyProblem.NOT_JSON);
      return;
    }
    depth--;
    events.containerEnd(depth, offset + 1);
    state = depth == 0 ? DONE : AFTER_VALUE;
  }

  private void startString(boolean key, long offset) {
    state = STRING;
    stringIsKey = key;
    stringStart = offset;
    utf8Continuations = 0;
    capture.reset(events.captureLimit(depth, key));
  }

  /**
   * The bytes of a string: the hot loop for a prompt's text. ASCII passes in a tight loop; escapes and UTF-8 sequences
   * are checked in place while they lie within this piece, and only one cut by the piece's end leaves for the states
   * ({@link #ESCAPE}, {@link #UNICODE}, or a count of continuation bytes). Returns where it stopped.
   */
  private int string(byte[] b, int i, int end, long base) {
    int start = i;
    while (utf8Continuations > 0 && i < end) { // the rest of a character the last piece cut
      if ((b[i++] & 0xC0) != 0x80) {
        events.fail(BodyProblem.NOT_JSON);
        return end;
      }
      utf8Continuations--;
    }
    int wordsFrom = i; // where words may be tried again: not inside the word that held a special byte
    while (i < end) {
      if (i >= wordsFrom) {
        i = StringWords.skipPlain(b, i, end);
        wordsFrom = i + Long.BYTES;
        if (i == end) {
          break;
        }
      }
      byte c = b[i];
      if (c >= 0x20 && c != '"' && c != '\\') { // a negative byte (not ASCII) falls out here too
        i++;
      } else if (c == '"') {
        capture.keep(b, start, i);
        endString(base + i + 1);
        return i + 1;
      } else if (c == '\\') {
        int next = escapeAt(b, i, end);
        if (next < 0) {
          return end;
        }
        i = next;
        if (state != STRING) { // the escape runs past this piece
          capture.keep(b, start, i);
          return i;
        }
      } else if (c >= 0) {
        events.fail(BodyProblem.NOT_JSON); // a control character, unescaped
        return end;
      } else {
        int lead = c & 0xFF;
        int n = lead >= 0xC2 && lead <= 0xDF ? 1 : lead >= 0xE0 && lead <= 0xEF ? 2 : lead >= 0xF0 && lead <= 0xF4 ? 3
            : -1;
        if (n < 0) {
          events.fail(BodyProblem.NOT_JSON);
          return end;
        }
        int have = Math.min(n, end - i - 1);
        for (int k = 1; k <= have; k++) {
          if ((b[i + k] & 0xC0) != 0x80) {
            events.fail(BodyProblem.NOT_JSON);
            return end;
          }
        }
        utf8Continuations = n - have;
        i += have + 1;
      }
    }
    capture.keep(b, start, i);
    return i;
  }

  /** An escape at {@code i}: the index after it, or -1 when it is not one; may leave the state ESCAPE or UNICODE. */
  private int escapeAt(byte[] b, int i, int end) {
    if (i + 1 >= end) {
      state = ESCAPE;
      return i + 1;
    }
    byte e = b[i + 1];
    if (e != 'u') {
      escape(e);
      return events.failed() ? -1 : i + 2;
    }
    int digits = Math.min(4, end - i - 2);
    for (int k = 0; k < digits; k++) {
      if (Character.digit(b[i + 2 + k], 16) < 0) {
        events.fail(BodyProblem.NOT_JSON);
        return -1;
      }
    }
    if (digits < 4) {
      state = UNICODE;
      unicodeDigits = digits;
    }
    return i + 2 + digits;
  }

  private void escape(byte c) {
    switch (c) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> state = STRING;
      case 'u' -> {
        state = UNICODE;
        unicodeDigits = 0;
      }
      default -> events.fail(BodyProblem.NOT_JSON);
    }
  }

  private void unicodeDigit(byte c) {
    if (Character.digit(c, 16) < 0) {
      events.fail(BodyProblem.NOT_JSON);
    } else if (++unicodeDigits == 4) {
      state = STRING;
    }
  }

  private void endString(long end) {
    String decoded = stringIsKey ? capture.decodedKey() : capture.decoded();
    if (stringIsKey) {
      state = COLON;
      events.key(depth, decoded);
    } else {
      state = depth == 0 ? DONE : AFTER_VALUE;
      events.string(depth, decoded, stringStart, end);
    }
  }

  private int number(byte[] b, int i) {
    byte c = b[i];
    switch (number.accept(c)) {
      case PART -> {
        return i + 1;
      }
      case ENDED -> {
        return endNumber(c, i);
      }
      default -> {
        events.fail(BodyProblem.NOT_JSON);
        return i + 1;
      }
    }
  }

  /**
   * The number ended at {@code c}, which belongs to the next token (so is read again, and refused there if it cannot
   * follow). A root number must be followed by whitespace or the end, as Jackson requires: {@code 0"x"} is not JSON.
   */
  private int endNumber(byte c, int i) {
    if (depth == 0 && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      events.fail(BodyProblem.NOT_JSON);
      return i + 1;
    }
    endNumber();
    return i;
  }

  private void endNumber() {
    state = depth == 0 ? DONE : AFTER_VALUE;
    events.number(depth, number.integral(), number.value());
  }

  private void startLiteral(byte[] expected) {
    state = LITERAL;
    literal = expected;
    literalAt = 1;
  }

  private void literalByte(byte c) {
    if (c != literal[literalAt]) {
      events.fail(BodyProblem.NOT_JSON);
    } else if (++literalAt == literal.length) {
      state = depth == 0 ? DONE : AFTER_VALUE;
      events.literal(depth);
    }
  }
}
