package io.llmgw.chattemplate.jinja;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Jinja's built-in filters that chat templates use, with Hugging Face's {@code tojson}. */
final class Filters {
  private Filters() {
  }

  static Object apply(String name, Object v, List<Object> args, Map<String, Object> kw) {
    return switch (name) {
      case "safe" -> v;
      case "tojson" -> PyJson.dumps(v, options(args, kw, "indent"));
      case "trim" -> StringMethods.strip(Py.str(v), arg(args, kw, 0, "chars") instanceof String c ? c : null, true,
          true);
      case "string" -> Py.str(v);
      case "length", "count" -> Py.length(v);
      case "lower" -> Py.str(v).toLowerCase(Locale.ROOT);
      case "upper" -> Py.str(v).toUpperCase(Locale.ROOT);
      case "title" -> StringMethods.title(Py.str(v));
      case "capitalize" -> {
        String s = Py.str(v);
        yield s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
      }
      case "replace" -> Py.str(v).replace(Py.str(args.get(0)), Py.str(args.get(1)));
      case "default", "d" -> {
        boolean byTruth = Py.truthy(arg(args, kw, 1, "boolean"));
        Object fallback = args.isEmpty() && !kw.containsKey("default_value") ? "" : arg(args, kw, 0, "default_value");
        yield v instanceof Undefined || (byTruth && !Py.truthy(v)) ? fallback : v;
      }
      case "first" -> {
        List<Object> items = Py.iterate(v);
        yield items.isEmpty() ? new Undefined("first") : items.get(0);
      }
      case "last" -> {
        List<Object> items = Py.iterate(v);
        yield items.isEmpty() ? new Undefined("last") : items.get(items.size() - 1);
      }
      case "list" -> new ArrayList<>(Py.iterate(v));
      case "items" -> v instanceof Undefined ? List.of() : Attributes.dictItems(v);
      case "join" -> joinExactly(Py.iterate(v), arg(args, kw, 0, "d") instanceof String s ? s : "",
          arg(args, kw, 1, "attribute"));
      case "reverse" -> {
        if (v instanceof String s) {
          yield new StringBuilder(s).reverse().toString();
        }
        List<Object> items = new ArrayList<>(Py.iterate(v));
        Collections.reverse(items);
        yield items;
      }
      case "sort" -> sorted(Py.iterate(v), Py.truthy(arg(args, kw, 0, "reverse")),
          Py.truthy(arg(args, kw, 1, "case_sensitive")), arg(args, kw, 2, "attribute"));
      case "dictsort" -> {
        List<Object> pairs = Attributes.dictItems(v);
        boolean byValue = "value".equals(arg(args, kw, 1, "by"));
        yield sorted(pairs, Py.truthy(arg(args, kw, 2, "reverse")), Py.truthy(arg(args, kw, 0, "case_sensitive")),
            byValue ? 1L : 0L);
      }
      case "unique" -> {
        List<Object> out = new ArrayList<>();
        for (Object item : Py.iterate(v)) {
          if (out.stream().noneMatch(o -> Py.eq(sortKey(o, false), sortKey(item, false)))) {
            out.add(item);
          }
        }
        yield out;
      }
      case "map" -> {
        List<Object> out = new ArrayList<>();
        Object attribute = kw.get("attribute");
        for (Object item : Py.iterate(v)) {
          if (attribute != null) {
            Object got = Attributes.item(item, attribute);
            out.add(got instanceof Undefined && kw.containsKey("default") ? kw.get("default") : got);
          } else {
            out.add(apply(Py.str(args.get(0)), item, args.subList(1, args.size()), Map.of()));
          }
        }
        yield out;
      }
      case "select", "reject", "selectattr", "rejectattr" -> select(name, v, args);
      case "attr" -> Attributes.attribute(v, Py.str(args.get(0)));
      case "int" -> toInt(v, args.isEmpty() ? 0L : args.get(0));
      case "float" -> toFloat(v, args.isEmpty() ? 0.0 : args.get(0));
      case "abs" -> v instanceof Double d ? Math.abs(d) : Math.abs(Py.toLong(v));
      case "round" -> BigDecimal.valueOf(Py.toDouble(v))
          .setScale((int) Py.toLong(args.isEmpty() ? 0L : args.get(0)), RoundingMode.HALF_EVEN).doubleValue();
      case "sum" -> {
        Object total = arg(args, kw, 1, "start") == null ? 0L : arg(args, kw, 1, "start");
        Object attribute = arg(args, kw, 0, "attribute");
        for (Object item : Py.iterate(v)) {
          total = Operators.binary("+", total, attribute == null ? item : Attributes.item(item, attribute));
        }
        yield total;
      }
      case "max", "min" -> {
        List<Object> items = sorted(Py.iterate(v), name.equals("max"), false, arg(args, kw, 1, "attribute"));
        yield items.isEmpty() ? new Undefined(name) : items.get(0);
      }
      case "wordcount" -> (long) StringMethods.split(Py.str(v), null, -1).size();
      case "indent" -> indent(Py.str(v), arg(args, kw, 0, "width"), Py.truthy(arg(args, kw, 1, "first")),
          Py.truthy(arg(args, kw, 2, "blank")));
      case "e", "escape" -> Py.str(v).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
          .replace("\"", "&#34;").replace("'", "&#39;");
      default -> throw new TemplateException("no filter named '" + name + "'");
    };
  }

  private static String joinExactly(List<Object> items, String separator, Object attribute) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      b.append(i == 0 ? "" : separator).append(Py.str(attribute == null ? item : Attributes.item(item, attribute)));
    }
    return b.toString();
  }

  private static Object arg(List<Object> args, Map<String, Object> kw, int i, String name) {
    return i < args.size() ? args.get(i) : kw.get(name);
  }

  private static Map<String, Object> options(List<Object> args, Map<String, Object> kw, String firstName) {
    if (args.isEmpty()) {
      return kw;
    }
    Map<String, Object> all = new HashMap<>(kw);
    all.put(firstName, args.get(0));
    return all;
  }

  private static Object sortKey(Object v, boolean caseSensitive) {
    return !caseSensitive && v instanceof String s ? s.toLowerCase(Locale.ROOT) : v;
  }

  private static List<Object> sorted(List<Object> items, boolean reverse, boolean caseSensitive, Object attribute) {
    Comparator<Object> order = (a, b) -> Py.compare(
        sortKey(attribute == null ? a : Attributes.item(a, attribute), caseSensitive),
        sortKey(attribute == null ? b : Attributes.item(b, attribute), caseSensitive), "<");
    List<Object> out = new ArrayList<>(items);
    out.sort(reverse ? order.reversed() : order);
    return out;
  }

  private static List<Object> select(String name, Object v, List<Object> args) {
    boolean byAttribute = name.endsWith("attr");
    boolean keep = name.startsWith("select");
    List<Object> rest = args.subList(Math.min(args.size(), byAttribute ? 1 : 0), args.size());
    List<Object> out = new ArrayList<>();
    for (Object item : Py.iterate(v)) {
      Object subject = byAttribute ? Attributes.item(item, args.get(0)) : item;
      boolean passes = rest.isEmpty()
          ? Py.truthy(subject)
          : Tests.test(Py.str(rest.get(0)), subject, rest.subList(1, rest.size()));
      if (passes == keep) {
        out.add(item);
      }
    }
    return out;
  }

  private static Object toInt(Object v, Object fallback) {
    if (v == null) {
      return fallback;
    }
    return switch (v) {
      case Long l -> l;
      case Boolean b -> b ? 1L : 0L;
      case Double d -> (long) d.doubleValue();
      case String s -> {
        try {
          yield Long.parseLong(s.strip().replace("_", ""));
        } catch (NumberFormatException e) {
          try {
            yield (long) Double.parseDouble(s.strip());
          } catch (NumberFormatException e2) {
            yield fallback;
          }
        }
      }
      default -> fallback;
    };
  }

  private static Object toFloat(Object v, Object fallback) {
    if (Py.isNumber(v)) {
      return Py.toDouble(v);
    }
    if (v instanceof String s) {
      try {
        return Double.parseDouble(s.strip());
      } catch (NumberFormatException e) {
        return fallback;
      }
    }
    return fallback;
  }

  private static String indent(String s, Object width, boolean first, boolean blank) {
    String pad = width instanceof String w ? w : " ".repeat((int) (width == null ? 4 : Py.toLong(width)));
    List<String> lines = new ArrayList<>((s + "\n").lines().toList());
    StringBuilder b = new StringBuilder(lines.isEmpty() ? "" : lines.get(0));
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      b.append('\n').append(blank || !line.isEmpty() ? pad + line : line);
    }
    return first ? pad + b : b.toString();
  }
}
