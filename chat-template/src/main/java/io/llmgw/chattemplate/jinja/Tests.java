package io.llmgw.chattemplate.jinja;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Jinja's tests ({@code x is defined}, {@code x is string}, ...), with Python's types. */
final class Tests {
  private Tests() {
  }

  static boolean test(String name, Object v, List<Object> args) {
    Object arg = args.isEmpty() ? null : args.get(0);
    return switch (name) {
      case "defined" -> !(v instanceof Undefined);
      case "undefined" -> v instanceof Undefined;
      case "none" -> v == null;
      case "boolean" -> v instanceof Boolean;
      case "true" -> Boolean.TRUE.equals(v);
      case "false" -> Boolean.FALSE.equals(v);
      case "integer" -> v instanceof Long;
      case "float" -> v instanceof Double;
      case "number" -> Py.isNumber(v);
      case "string" -> v instanceof String;
      case "mapping" -> v instanceof Map;
      case "iterable" -> v instanceof List || v instanceof Map || v instanceof String || v instanceof Undefined;
      case "sequence" -> v instanceof List || v instanceof Map || v instanceof String;
      case "callable" -> v instanceof Fn;
      case "sameas" -> v == arg || (v instanceof Boolean && v.equals(arg));
      case "eq", "equalto", "==" -> Py.eq(v, arg);
      case "ne", "!=" -> !Py.eq(v, arg);
      case "lt", "lessthan", "<" -> Py.compare(v, arg, "<") < 0;
      case "le", "<=" -> Py.compare(v, arg, "<=") <= 0;
      case "gt", "greaterthan", ">" -> Py.compare(v, arg, ">") > 0;
      case "ge", ">=" -> Py.compare(v, arg, ">=") >= 0;
      case "in" -> Py.contains(arg, v);
      case "divisibleby" -> Py.toLong(v) % Py.toLong(arg) == 0;
      case "even" -> Py.toLong(v) % 2 == 0;
      case "odd" -> Py.toLong(v) % 2 != 0;
      case "lower" -> v instanceof String s && s.equals(s.toLowerCase(Locale.ROOT));
      case "upper" -> v instanceof String s && s.equals(s.toUpperCase(Locale.ROOT));
      default -> throw new TemplateException("no test named '" + name + "'");
    };
  }
}
