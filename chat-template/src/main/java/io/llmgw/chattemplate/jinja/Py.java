package io.llmgw.chattemplate.jinja;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Python's meaning of values, as a Jinja template running in Python sees them: truth, {@code str()}, {@code repr()},
 * equality (where {@code True == 1}), order, and lengths counted in code points. Values are null (None),
 * {@link Boolean}, {@link Long}, {@link Double}, {@link String}, {@link List}, {@link Map}, {@link Undefined} and
 * callables.
 */
final class Py {
  private Py() {
  }

  static boolean truthy(Object v) {
    return switch (v) {
      case null -> false;
      case Boolean b -> b;
      case Long l -> l != 0;
      case Double d -> d != 0;
      case String s -> !s.isEmpty();
      case List<?> l -> !l.isEmpty();
      case Map<?, ?> m -> !m.isEmpty();
      case Undefined u -> false;
      default -> true;
    };
  }

  static String str(Object v) {
    return switch (v) {
      case null -> "None";
      case String s -> s;
      case Undefined u -> "";
      default -> repr(v);
    };
  }

  static String repr(Object v) {
    return switch (v) {
      case null -> "None";
      case Boolean b -> b ? "True" : "False";
      case Long l -> l.toString();
      case Double d -> floatRepr(d);
      case String s -> stringRepr(s);
      case List<?> l -> {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < l.size(); i++) {
          b.append(i == 0 ? "" : ", ").append(repr(l.get(i)));
        }
        yield b.append(']').toString();
      }
      case Map<?, ?> m -> {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<?, ?> e : m.entrySet()) {
          b.append(b.length() == 1 ? "" : ", ").append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
        }
        yield b.append('}').toString();
      }
      case Undefined u -> "";
      default -> "<" + typeName(v) + ">";
    };
  }

  /** Python's {@code repr(float)}: the shortest digits that read back the same, in exponent form outside 1e-4..1e16. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return 1 / d < 0 ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    String digits = exact.unscaledValue().abs().toString();
    int exponent = digits.length() - 1 - exact.scale();
    String sign = d < 0 ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
      String plain = exact.abs().toPlainString();
      return sign + (plain.contains(".") ? plain : plain + ".0");
    }
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "")
        + Math.abs(exponent);
  }

  private static String stringRepr(String s) {
    char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    StringBuilder b = new StringBuilder().append(quote);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c == quote) {
            b.append('\\').append(c);
          } else if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append(quote).toString();
  }

  static String typeName(Object v) {
    return switch (v) {
      case null -> "NoneType";
      case Boolean b -> "bool";
      case Long l -> "int";
      case Double d -> "float";
      case String s -> "str";
      case List<?> l -> "list";
      case Namespace n -> "Namespace";
      case Map<?, ?> m -> "dict";
      case Undefined u -> "Undefined";
      case Fn f -> "function";
      default -> v.getClass().getSimpleName();
    };
  }

  static boolean isNumber(Object v) {
    return v instanceof Long || v instanceof Double || v instanceof Boolean;
  }

  static double toDouble(Object v) {
    return switch (v) {
      case null -> throw new TemplateException("a number was expected, not None");
      case Long l -> l;
      case Double d -> d;
      case Boolean b -> b ? 1 : 0;
      default -> throw new TemplateException("a number was expected, not " + typeName(v));
    };
  }

  static long toLong(Object v) {
    return switch (v) {
      case null -> throw new TemplateException("an integer was expected, not None");
      case Long l -> l;
      case Boolean b -> b ? 1 : 0;
      default -> throw new TemplateException("an integer was expected, not " + typeName(v));
    };
  }

  static boolean eq(Object a, Object b) {
    if (isNumber(a) && isNumber(b)) {
      return a instanceof Double || b instanceof Double ? toDouble(a) == toDouble(b) : toLong(a) == toLong(b);
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!eq(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !eq(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Undefined || b instanceof Undefined) {
      return a instanceof Undefined && b instanceof Undefined;
    }
    return a == null ? b == null : a.equals(b);
  }

  static int compare(Object a, Object b, String op) {
    if (isNumber(a) && isNumber(b)) {
      return a instanceof Double || b instanceof Double
          ? Double.compare(toDouble(a), toDouble(b))
          : Long.compare(toLong(a), toLong(b));
    }
    if (a instanceof String x && b instanceof String y) {
      return compareCodePoints(x, y);
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
        if (!eq(x.get(i), y.get(i))) {
          return compare(x.get(i), y.get(i), op);
        }
      }
      return Integer.compare(x.size(), y.size());
    }
    throw new TemplateException("'" + op + "' is not supported between " + typeName(a) + " and " + typeName(b));
  }

  private static int compareCodePoints(String x, String y) {
    int i = 0;
    int j = 0;
    while (i < x.length() && j < y.length()) {
      int a = x.codePointAt(i);
      int b = y.codePointAt(j);
      if (a != b) {
        return Integer.compare(a, b);
      }
      i += Character.charCount(a);
      j += Character.charCount(b);
    }
    return Boolean.compare(i < x.length(), j < y.length());
  }

  static boolean contains(Object container, Object item) {
    return switch (container) {
      case null -> throw new TemplateException("None cannot hold anything ('in')");
      case String s -> {
        if (!(item instanceof String needle)) {
          throw new TemplateException("'in <string>' requires a string, not " + typeName(item));
        }
        yield s.contains(needle);
      }
      case List<?> l -> l.stream().anyMatch(x -> eq(x, item));
      case Map<?, ?> m -> m.keySet().stream().anyMatch(k -> eq(k, item));
      case Undefined u -> false;
      default -> throw new TemplateException("a " + typeName(container) + " cannot hold anything ('in')");
    };
  }

  /** What a {@code for} loop over {@code v} goes through: a list's items, a dict's keys, a string's characters. */
  static List<Object> iterate(Object v) {
    return switch (v) {
      case null -> throw new TemplateException("None cannot be iterated");
      case List<?> l -> Collections.unmodifiableList(new ArrayList<Object>(l));
      case Map<?, ?> m -> new ArrayList<>(m.keySet());
      case String s -> {
        List<Object> chars = new ArrayList<>();
        s.codePoints().forEach(cp -> chars.add(Character.toString(cp)));
        yield chars;
      }
      case Undefined u -> List.of();
      default -> throw new TemplateException("a " + typeName(v) + " cannot be iterated");
    };
  }

  static long length(Object v) {
    return switch (v) {
      case null -> throw new TemplateException("None has no length");
      case String s -> s.codePointCount(0, s.length());
      case List<?> l -> l.size();
      case Map<?, ?> m -> m.size();
      case Undefined u -> 0;
      default -> throw new TemplateException("a " + typeName(v) + " has no length");
    };
  }
}
