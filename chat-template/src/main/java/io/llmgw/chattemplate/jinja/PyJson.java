package io.llmgw.chattemplate.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code tojson} filter as Hugging Face defines it for chat templates: Python's {@code json.dumps} with
 * {@code ensure_ascii=False} unless asked, separators {@code ", "} and {@code ": "} (or {@code ","} with an indent),
 * keys in their order unless {@code sort_keys}.
 */
final class PyJson {
  private static final int MAX_DEPTH = 200;

  private final String indent;
  private final boolean ensureAscii;
  private final boolean sortKeys;
  private final String itemSeparator;
  private final String keySeparator;
  private final StringBuilder out = new StringBuilder();

  private PyJson(Object indent, boolean ensureAscii, boolean sortKeys, List<?> separators) {
    this.indent = indent == null ? null : indent instanceof String s ? s : " ".repeat((int) Py.toLong(indent));
    this.ensureAscii = ensureAscii;
    this.sortKeys = sortKeys;
    if (separators != null && separators.size() == 2) {
      this.itemSeparator = Py.str(separators.get(0));
      this.keySeparator = Py.str(separators.get(1));
    } else {
      this.itemSeparator = this.indent == null ? ", " : ",";
      this.keySeparator = ": ";
    }
  }

  static String dumps(Object value, Map<String, Object> options) {
    Object separators = options.get("separators");
    PyJson json = new PyJson(options.get("indent"), Py.truthy(options.get("ensure_ascii")),
        Py.truthy(options.get("sort_keys")), separators instanceof List<?> l ? l : null);
    json.write(value, 0);
    return json.out.toString();
  }

  private void write(Object v, int depth) {
    if (depth > MAX_DEPTH) {
      throw new TemplateException("tojson: nested too deep");
    }
    switch (v) {
      case null -> out.append("null");
      case Boolean b -> out.append(b ? "true" : "false");
      case Long l -> out.append(l);
      case Double d -> out.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity")
          : Py.floatRepr(d));
      case String s -> string(s);
      case List<?> list -> {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          out.append(i == 0 ? "" : itemSeparator);
          newline(depth + 1);
          write(list.get(i), depth + 1);
        }
        if (!list.isEmpty()) {
          newline(depth);
        }
        out.append(']');
      }
      case Map<?, ?> map -> {
        List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
        if (sortKeys) {
          entries.sort((a, b) -> Py.compare(key(a.getKey()), key(b.getKey()), "<"));
        }
        out.append('{');
        for (int i = 0; i < entries.size(); i++) {
          out.append(i == 0 ? "" : itemSeparator);
          newline(depth + 1);
          string(key(entries.get(i).getKey()));
          out.append(keySeparator);
          write(entries.get(i).getValue(), depth + 1);
        }
        if (!entries.isEmpty()) {
          newline(depth);
        }
        out.append('}');
      }
      default -> throw new TemplateException("tojson: a " + Py.typeName(v) + " is not JSON serializable");
    }
  }

  private static String key(Object k) {
    return switch (k) {
      case String s -> s;
      case null -> "null";
      case Boolean b -> b ? "true" : "false";
      case Long l -> l.toString();
      case Double d -> Py.floatRepr(d);
      default -> throw new TemplateException("tojson: keys must be str, int, float, bool or None");
    };
  }

  private void newline(int depth) {
    if (indent != null) {
      out.append('\n').append(indent.repeat(depth));
    }
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || (ensureAscii && c > 0x7e)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
