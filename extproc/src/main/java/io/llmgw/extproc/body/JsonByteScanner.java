package io.llmgw.extproc.body;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A push scanner for one JSON text (RFC 8259) fed as byte pieces of any size: it checks the grammar, string escapes,
 * UTF-8 and nesting, and reports each value to its subclass in body order with its byte offsets. A string is decoded
 * only when the subclass asks for it at its start ({@link #captureLimit}); every other string is only scanned for its
 * end, in a loop over plain ASCII bytes. After the first problem it reports nothing more.
 */
abstract class JsonByteScanner {
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

  private static final int N_SIGN = 0;
  private static final int N_ZERO = 1;
  private static final int N_INT = 2;
  private static final int N_DOT = 3;
  private static final int N_FRAC = 4;
  private static final int N_E = 5;
  private static final int N_E_SIGN = 6;
  private static final int N_EXP = 7;

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
  private int captureLimit;
  private byte[] capture = new byte[32];
  private int captured;
  private boolean captureOverflow;

  private int numberState;
  private boolean numberNegative;
  private boolean numberIntegral;
  private long numberValue;
  private boolean numberOverflow;

  private byte[] literal;
  private int literalAt;

  protected abstract void fail(BodyProblem problem);

  protected abstract boolean failed();

  /** An object or array opens inside {@code depthBefore} containers (0: it is the root) at {@code offset}. */
  protected abstract void containerStart(int depthBefore, boolean object, long offset);

  /** A container closed, leaving {@code depthAfter} open; {@code endOffset} is one past its closing bracket. */
  protected abstract void containerEnd(int depthAfter, long endOffset);

  /** How many raw bytes of the string starting here to keep and decode (0: none, only scan for its end). */
  protected abstract int captureLimit(int depth, boolean key);

  /** A key of an object at {@code depth}; its name, or null when not captured. */
  protected abstract void key(int depth, String name);

  /** A string value; decoded when captured within its limit, else null; offsets of its quotes, end exclusive. */
  protected abstract void string(int depth, String decoded, long start, long end);

  /** A number; {@code integral} when it has no fraction or exponent ({@code value} then holds it, saturated). */
  protected abstract void number(int depth, boolean integral, long value);

  /** {@code true}, {@code false} or {@code null}. */
  protected abstract void literal(int depth);

  /** Containers open now. */
  protected final int depth() {
    return depth;
  }

  final void feed(byte[] b, int from, int length) {
    int end = from + length;
    long base = consumed - from;
    int i = from;
    while (i < end && !failed()) {
      i = switch (state) {
        case STRING -> string(b, i, end, base);
        case NUMBER -> number(b, i, base);
        default -> structural(b, i, base);
      };
    }
    consumed += length;
  }

  /** The input ended: anything but a closed root is not JSON (a bare root number included, as Jackson has it). */
  final void end() {
    if (!failed() && state != DONE) {
      fail(BodyProblem.NOT_JSON);
    }
  }

  private int structural(byte[] b, int i, long base) {
    byte c = b[i];
    switch (state) {
      case ESCAPE -> {
        keep(c);
        escape(c);
        return i + 1;
      }
      case UNICODE -> {
        keep(c);
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
          fail(BodyProblem.NOT_JSON);
        }
      }
      case COLON -> {
        if (c == ':') {
          state = VALUE;
        } else {
          fail(BodyProblem.NOT_JSON);
        }
      }
      case AFTER_VALUE -> {
        if (c == ',') {
          state = containers[depth - 1] == '{' ? KEY : VALUE;
        } else if (c == '}' || c == ']') {
          close(c, base + i);
        } else {
          fail(BodyProblem.NOT_JSON);
        }
      }
      default -> fail(BodyProblem.NOT_JSON); // DONE: something after the root value
    }
    return i + 1;
  }

  private void startValue(byte c, long offset) {
    switch (c) {
      case '{', '[' -> {
        boolean object = c == '{';
        containerStart(depth, object, offset);
        if (failed()) {
          return;
        }
        if (depth == ModelExtractor.MAX_NESTING) {
          fail(BodyProblem.TOO_DEEP);
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
          numberNegative = c == '-';
          numberIntegral = true;
          numberValue = 0;
          numberOverflow = false;
          numberState = c == '-' ? N_SIGN : c == '0' ? N_ZERO : N_INT;
          if (c > '0') {
            numberValue = c - '0';
          }
        } else {
          fail(BodyProblem.NOT_JSON);
        }
      }
    }
  }

  private void close(byte c, long offset) {
    byte open = containers[depth - 1];
    if ((c == '}') != (open == '{')) {
      fail(BodyProblem.NOT_JSON);
      return;
    }
    depth--;
    containerEnd(depth, offset + 1);
    state = depth == 0 ? DONE : AFTER_VALUE;
  }

  private void startString(boolean key, long offset) {
    state = STRING;
    stringIsKey = key;
    stringStart = offset;
    utf8Continuations = 0;
    captured = 0;
    captureOverflow = false;
    captureLimit = captureLimit(depth, key);
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
        fail(BodyProblem.NOT_JSON);
        return end;
      }
      utf8Continuations--;
    }
    while (i < end) {
      byte c = b[i];
      if (c >= 0x20 && c != '"' && c != '\\') { // a negative byte (not ASCII) falls out here too
        i++;
      } else if (c == '"') {
        keepRun(b, start, i);
        endString(base + i + 1);
        return i + 1;
      } else if (c == '\\') {
        int next = escapeAt(b, i, end);
        if (next < 0) {
          return end;
        }
        i = next;
        if (state != STRING) { // the escape runs past this piece
          keepRun(b, start, i);
          return i;
        }
      } else if (c >= 0) {
        fail(BodyProblem.NOT_JSON); // a control character, unescaped
        return end;
      } else {
        int lead = c & 0xFF;
        int n = lead >= 0xC2 && lead <= 0xDF ? 1 : lead >= 0xE0 && lead <= 0xEF ? 2 : lead >= 0xF0 && lead <= 0xF4 ? 3
            : -1;
        if (n < 0) {
          fail(BodyProblem.NOT_JSON);
          return end;
        }
        int have = Math.min(n, end - i - 1);
        for (int k = 1; k <= have; k++) {
          if ((b[i + k] & 0xC0) != 0x80) {
            fail(BodyProblem.NOT_JSON);
            return end;
          }
        }
        utf8Continuations = n - have;
        i += have + 1;
      }
    }
    keepRun(b, start, i);
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
      return failed() ? -1 : i + 2;
    }
    int digits = Math.min(4, end - i - 2);
    for (int k = 0; k < digits; k++) {
      if (Character.digit(b[i + 2 + k], 16) < 0) {
        fail(BodyProblem.NOT_JSON);
        return -1;
      }
    }
    if (digits < 4) {
      state = UNICODE;
      unicodeDigits = digits;
    }
    return i + 2 + digits;
  }

  private void keepRun(byte[] b, int from, int to) {
    if (captureLimit > 0) {
      keep(b, from, to - from);
    }
  }

  private void escape(byte c) {
    switch (c) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> state = STRING;
      case 'u' -> {
        state = UNICODE;
        unicodeDigits = 0;
      }
      default -> fail(BodyProblem.NOT_JSON);
    }
  }

  private void unicodeDigit(byte c) {
    if (Character.digit(c, 16) < 0) {
      fail(BodyProblem.NOT_JSON);
    } else if (++unicodeDigits == 4) {
      state = STRING;
    }
  }

  private void endString(long end) {
    String decoded = captureLimit > 0 && !captureOverflow ? JsonStrings.decode(capture, captured) : null;
    if (stringIsKey) {
      state = COLON;
      key(depth, decoded);
    } else {
      state = depth == 0 ? DONE : AFTER_VALUE;
      string(depth, decoded, stringStart, end);
    }
  }

  private int number(byte[] b, int i, long base) {
    byte c = b[i];
    boolean digit = c >= '0' && c <= '9';
    switch (numberState) {
      case N_SIGN -> {
        if (!digit) {
          fail(BodyProblem.NOT_JSON);
          return i + 1;
        }
        numberState = c == '0' ? N_ZERO : N_INT;
        accumulate(c);
      }
      case N_ZERO, N_INT -> {
        if (digit && numberState == N_INT) {
          accumulate(c);
        } else if (digit) {
          fail(BodyProblem.NOT_JSON); // a leading zero
        } else if (c == '.') {
          numberState = N_DOT;
          numberIntegral = false;
        } else if (c == 'e' || c == 'E') {
          numberState = N_E;
          numberIntegral = false;
        } else {
          return endNumber(c, i);
        }
      }
      case N_DOT -> {
        if (!digit) {
          fail(BodyProblem.NOT_JSON);
        }
        numberState = N_FRAC;
      }
      case N_FRAC, N_EXP -> {
        if (c == 'e' || c == 'E') {
          if (numberState == N_EXP) {
            fail(BodyProblem.NOT_JSON);
          }
          numberState = N_E;
        } else if (!digit) {
          return endNumber(c, i);
        }
      }
      case N_E -> {
        if (c == '+' || c == '-') {
          numberState = N_E_SIGN;
        } else if (digit) {
          numberState = N_EXP;
        } else {
          fail(BodyProblem.NOT_JSON);
        }
      }
      default -> { // N_E_SIGN
        if (!digit) {
          fail(BodyProblem.NOT_JSON);
        }
        numberState = N_EXP;
      }
    }
    return i + 1;
  }

  private void accumulate(byte c) {
    int d = c - '0';
    if (numberValue > (Long.MAX_VALUE - d) / 10) {
      numberOverflow = true;
    } else {
      numberValue = numberValue * 10 + d;
    }
  }

  /**
   * The number ended at {@code c}, which belongs to the next token (so is read again, and refused there if it cannot
   * follow). A root number must be followed by whitespace or the end, as Jackson requires: {@code 0"x"} is not JSON.
   */
  private int endNumber(byte c, int i) {
    if (depth == 0 && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      fail(BodyProblem.NOT_JSON);
      return i + 1;
    }
    endNumber();
    return i;
  }

  private void endNumber() {
    state = depth == 0 ? DONE : AFTER_VALUE;
    long value = numberOverflow ? Long.MAX_VALUE : numberValue;
    number(depth, numberIntegral, numberNegative ? -value : value);
  }

  private void startLiteral(byte[] expected) {
    state = LITERAL;
    literal = expected;
    literalAt = 1;
  }

  private void literalByte(byte c) {
    if (c != literal[literalAt]) {
      fail(BodyProblem.NOT_JSON);
    } else if (++literalAt == literal.length) {
      state = depth == 0 ? DONE : AFTER_VALUE;
      literal(depth);
    }
  }

  private void keep(byte c) {
    if (captureLimit > 0 && !captureOverflow) {
      ensure(1);
      if (!captureOverflow) {
        capture[captured++] = c;
      }
    }
  }

  private void keep(byte[] b, int from, int n) {
    if (n > 0 && !captureOverflow) {
      ensure(n);
      if (!captureOverflow) {
        System.arraycopy(b, from, capture, captured, n);
        captured += n;
      }
    }
  }

  private void ensure(int n) {
    if ((long) captured + n > captureLimit) {
      captureOverflow = true;
    } else if (captured + n > capture.length) {
      capture = Arrays.copyOf(capture, Math.max(capture.length * 2, captured + n));
    }
  }
}
