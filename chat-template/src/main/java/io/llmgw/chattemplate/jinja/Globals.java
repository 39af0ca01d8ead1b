package io.llmgw.chattemplate.jinja;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The functions a chat template may call: Jinja's {@code range}, {@code dict} and {@code namespace}, and Hugging
 * Face's {@code raise_exception} and {@code strftime_now}.
 */
final class Globals {
  static final int MAX_RANGE = 1 << 20;

  private Globals() {
  }

  static Object lookup(String name) {
    return switch (name) {
      case "range" -> (Fn) Globals::range;
      case "dict" -> (Fn) (args, kw) -> {
        Map<Object, Object> d = new LinkedHashMap<>();
        if (!args.isEmpty() && args.get(0) instanceof Map<?, ?> m) {
          d.putAll(m);
        }
        d.putAll(kw);
        return d;
      };
      case "namespace" -> (Fn) (args, kw) -> {
        Namespace ns = new Namespace();
        if (!args.isEmpty() && args.get(0) instanceof Map<?, ?> m) {
          m.forEach((k, v) -> ns.put(Py.str(k), v));
        }
        ns.putAll(kw);
        return ns;
      };
      case "raise_exception" -> (Fn) (args, kw) -> {
        throw new TemplateException(args.isEmpty() ? "the template raised an exception" : Py.str(args.get(0)), true);
      };
      case "strftime_now" -> (Fn) (args, kw) -> strftime(ZonedDateTime.now(ZoneOffset.UTC),
          args.isEmpty() ? "%Y-%m-%d" : Py.str(args.get(0)));
      default -> null;
    };
  }

  private static Object range(List<Object> args, Map<String, Object> kw) {
    long start = args.size() > 1 ? Py.toLong(args.get(0)) : 0;
    long stop = args.size() > 1 ? Py.toLong(args.get(1)) : args.isEmpty() ? 0 : Py.toLong(args.get(0));
    long step = args.size() > 2 ? Py.toLong(args.get(2)) : 1;
    if (step == 0) {
      throw new TemplateException("range() step must not be zero");
    }
    List<Object> out = new ArrayList<>();
    for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (out.size() == MAX_RANGE) {
        throw new TemplateException("range() longer than " + MAX_RANGE);
      }
      out.add(i);
    }
    return out;
  }

  /** Python's {@code strftime} for the directives templates use (dates in their system prompts). */
  static String strftime(ZonedDateTime t, String format) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        b.append(c);
        continue;
      }
      char d = format.charAt(++i);
      String pattern = switch (d) {
        case 'd' -> "dd";
        case 'm' -> "MM";
        case 'Y' -> "yyyy";
        case 'y' -> "yy";
        case 'b' -> "MMM";
        case 'B' -> "MMMM";
        case 'a' -> "EEE";
        case 'A' -> "EEEE";
        case 'H' -> "HH";
        case 'I' -> "hh";
        case 'M' -> "mm";
        case 'S' -> "ss";
        case 'p' -> "a";
        case 'j' -> "DDD";
        default -> null;
      };
      if (pattern != null) {
        b.append(DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH).format(t));
      } else {
        b.append(d == '%' ? "%" : "%" + d);
      }
    }
    return b.toString();
  }
}
