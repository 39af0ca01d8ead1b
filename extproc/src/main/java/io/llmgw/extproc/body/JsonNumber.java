package io.llmgw.extproc.body;

/**
 * One JSON number as its bytes arrive (RFC 8259's grammar: {@code -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?}), and its
 * value when it is a whole number. A number ends at the first byte that cannot continue it, which belongs to the next
 * token.
 */
final class JsonNumber {
  /** What a byte did to the number. */
  enum Step {
    PART, ENDED, INVALID
  }

  private static final int SIGN = 0;
  private static final int ZERO = 1;
  private static final int INT = 2;
  private static final int DOT = 3;
  private static final int FRAC = 4;
  private static final int E = 5;
  private static final int E_SIGN = 6;
  private static final int EXP = 7;

  private int state;
  private boolean negative;
  private boolean integral;
  private long value;
  private boolean overflow;

  /** Starts a number at its first byte, a minus or a digit. */
  void start(byte c) {
    negative = c == '-';
    integral = true;
    value = 0;
    overflow = false;
    state = c == '-' ? SIGN : c == '0' ? ZERO : INT;
    if (c > '0') {
      value = c - '0';
    }
  }

  Step accept(byte c) {
    boolean digit = c >= '0' && c <= '9';
    switch (state) {
      case SIGN -> {
        if (!digit) {
          return Step.INVALID;
        }
        state = c == '0' ? ZERO : INT;
        accumulate(c);
      }
      case ZERO, INT -> {
        if (digit) {
          if (state == ZERO) {
            return Step.INVALID; // a leading zero
          }
          accumulate(c);
        } else if (c == '.') {
          state = DOT;
          integral = false;
        } else if (c == 'e' || c == 'E') {
          state = E;
          integral = false;
        } else {
          return Step.ENDED;
        }
      }
      case DOT -> {
        if (!digit) {
          return Step.INVALID;
        }
        state = FRAC;
      }
      case FRAC, EXP -> {
        if (c == 'e' || c == 'E') {
          if (state == EXP) {
            return Step.INVALID;
          }
          state = E;
        } else if (!digit) {
          return Step.ENDED;
        }
      }
      case E -> {
        if (c == '+' || c == '-') {
          state = E_SIGN;
        } else if (digit) {
          state = EXP;
        } else {
          return Step.INVALID;
        }
      }
      default -> { // E_SIGN
        if (!digit) {
          return Step.INVALID;
        }
        state = EXP;
      }
    }
    return Step.PART;
  }

  /** No fraction and no exponent: {@link #value} holds the number. */
  boolean integral() {
    return integral;
  }

  /** The whole number, saturated at {@code Long.MAX_VALUE} in magnitude. */
  long value() {
    long v = overflow ? Long.MAX_VALUE : value;
    return negative ? -v : v;
  }

  private void accumulate(byte c) {
    int d = c - '0';
    if (value > (Long.MAX_VALUE - d) / 10) {
      overflow = true;
    } else {
      value = value * 10 + d;
    }
  }
}
