package io.llmgw.chattemplate.jinja;

import java.util.ArrayList;
import java.util.List;

/** Python's arithmetic and Jinja's {@code ~}, on the values {@link Py} describes. */
final class Operators {
  private static final int MAX_REPEAT_CHARS = 1 << 24;

  private Operators() {
  }

  static Object binary(String op, Object a, Object b) {
    if (op.equals("~")) {
      return Py.str(a) + Py.str(b);
    }
    if (a instanceof Undefined u) {
      throw u.error();
    }
    if (b instanceof Undefined u) {
      throw u.error();
    }
    return switch (op) {
      case "+" -> add(a, b);
      case "-" -> numeric(op, a, b);
      case "*" -> multiply(a, b);
      case "/" -> {
        double divisor = Py.toDouble(checkedNumber(op, b, a));
        if (divisor == 0) {
          throw new TemplateException("division by zero");
        }
        yield Py.toDouble(checkedNumber(op, a, b)) / divisor;
      }
      case "//", "%" -> floorOrModulo(op, a, b);
      case "**" -> {
        if (isInt(a) && isInt(b) && Py.toLong(b) >= 0) {
          yield (long) Math.pow(Py.toLong(a), Py.toLong(b));
        }
        yield Math.pow(Py.toDouble(checkedNumber(op, a, b)), Py.toDouble(checkedNumber(op, b, a)));
      }
      default -> throw new TemplateException("unknown operator " + op);
    };
  }

  private static boolean isInt(Object v) {
    return v instanceof Long || v instanceof Boolean;
  }

  private static Object checkedNumber(String op, Object v, Object other) {
    if (!Py.isNumber(v)) {
      throw unsupported(op, v, other);
    }
    return v;
  }

  private static TemplateException unsupported(String op, Object a, Object b) {
    return new TemplateException(
        "unsupported operand types for " + op + ": " + Py.typeName(a) + " and " + Py.typeName(b));
  }

  private static Object add(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return x + y;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      List<Object> joined = new ArrayList<>(x);
      joined.addAll(y);
      return joined;
    }
    return numeric("+", a, b);
  }

  private static Object numeric(String op, Object a, Object b) {
    if (!Py.isNumber(a) || !Py.isNumber(b)) {
      throw unsupported(op, a, b);
    }
    if (isInt(a) && isInt(b)) {
      try {
        return op.equals("+")
            ? Math.addExact(Py.toLong(a), Py.toLong(b))
            : Math.subtractExact(Py.toLong(a), Py.toLong(b));
      } catch (ArithmeticException e) {
        throw new TemplateException("an integer out of range");
      }
    }
    return op.equals("+") ? Py.toDouble(a) + Py.toDouble(b) : Py.toDouble(a) - Py.toDouble(b);
  }

  private static Object multiply(Object a, Object b) {
    if ((a instanceof String || a instanceof List) && isInt(b)) {
      return repeat(a, Py.toLong(b));
    }
    if (isInt(a) && (b instanceof String || b instanceof List)) {
      return repeat(b, Py.toLong(a));
    }
    if (!Py.isNumber(a) || !Py.isNumber(b)) {
      throw unsupported("*", a, b);
    }
    if (isInt(a) && isInt(b)) {
      try {
        return Math.multiplyExact(Py.toLong(a), Py.toLong(b));
      } catch (ArithmeticException e) {
        throw new TemplateException("an integer out of range");
      }
    }
    return Py.toDouble(a) * Py.toDouble(b);
  }

  private static Object repeat(Object seq, long times) {
    long n = Math.max(0, times);
    if (n * Py.length(seq) > MAX_REPEAT_CHARS) {
      throw new TemplateException("a repetition larger than " + MAX_REPEAT_CHARS);
    }
    if (seq instanceof String s) {
      return s.repeat((int) n);
    }
    List<Object> out = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      out.addAll((List<?>) seq);
    }
    return out;
  }

  private static Object floorOrModulo(String op, Object a, Object b) {
    if (!Py.isNumber(a) || !Py.isNumber(b)) {
      throw unsupported(op, a, b);
    }
    if (Py.toDouble(b) == 0) {
      throw new TemplateException("division by zero");
    }
    if (isInt(a) && isInt(b)) {
      return op.equals("//") ? Math.floorDiv(Py.toLong(a), Py.toLong(b)) : Math.floorMod(Py.toLong(a), Py.toLong(b));
    }
    double x = Py.toDouble(a);
    double y = Py.toDouble(b);
    double floor = Math.floor(x / y);
    return op.equals("//") ? floor : x - floor * y;
  }

  static Object negate(Object v) {
    return switch (v) {
      case null -> throw new TemplateException("bad operand type for unary -: NoneType");
      case Long l -> -l;
      case Double d -> -d;
      case Boolean b -> b ? -1L : 0L;
      case Undefined u -> throw u.error();
      default -> throw new TemplateException("bad operand type for unary -: " + Py.typeName(v));
    };
  }
}
