package io.llmgw.picker.config;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One plugin's parameters, read with names, defaults and bounds; anything unusable or unknown is an error that names
 * the plugin and the parameter (a typo in a weight or a capacity must not be ignored silently).
 */
public final class Parameters {
  private final String plugin;
  private final Map<String, Object> values;

  public Parameters(String plugin, Map<String, Object> values) {
    this.plugin = plugin;
    this.values = values;
  }

  /** Rejects any parameter not named here. */
  public Parameters allowOnly(String... names) {
    TreeSet<String> unknown = new TreeSet<>(values.keySet());
    unknown.removeAll(Set.of(names));
    if (!unknown.isEmpty()) {
      throw new ParameterException(plugin, unknown.first(), "plugin " + plugin + ": unknown parameter"
          + (unknown.size() > 1 ? "s " : " ")
          + unknown + (names.length == 0 ? "; it takes none" : "; it takes " + new TreeSet<>(Set.of(names))));
    }
    return this;
  }

  /** Refuses parameters that now belong to another plugin type, naming it ({@code old name → new type}). */
  public Parameters movedTo(Map<String, String> newHomes) {
    for (Map.Entry<String, String> e : new TreeMap<>(newHomes).entrySet()) {
      if (values.containsKey(e.getKey())) {
        throw new ParameterException(plugin, e.getKey(), "plugin " + plugin + ": parameter " + e.getKey()
            + " is now a parameter of the " + e.getValue() + " plugin; list that plugin with it");
      }
    }
    return this;
  }

  public int integer(String name, int fallback, int min, int max) {
    double d = number(name, fallback, min, max);
    if (d != Math.rint(d)) {
      throw bad(name, values.get(name), "a whole number");
    }
    return (int) d;
  }

  public double number(String name, double fallback, double min, double max) {
    Object v = values.get(name);
    if (v == null) {
      return fallback;
    }
    double d;
    if (v instanceof Number n) {
      d = n.doubleValue();
    } else {
      try {
        d = Double.parseDouble(v.toString().trim());
      } catch (NumberFormatException e) {
        throw bad(name, v, "a number");
      }
    }
    if (!(d >= min && d <= max)) {
      throw bad(name, v, "between " + trim(min) + " and " + trim(max));
    }
    return d;
  }

  public boolean bool(String name, boolean fallback) {
    Object v = values.get(name);
    if (v == null) {
      return fallback;
    }
    return switch (v.toString().trim()) {
      case "true" -> true;
      case "false" -> false;
      default -> throw bad(name, v, "true or false");
    };
  }

  /** A text parameter that must match {@code pattern} (described as {@code expected} in the error). */
  public String text(String name, String fallback, String pattern, String expected) {
    Object v = values.get(name);
    if (v == null) {
      return fallback;
    }
    String s = v.toString().trim();
    if (!s.matches(pattern)) {
      throw bad(name, v, expected);
    }
    return s;
  }

  /** A structured parameter (a mapping or a list) as read, for a factory that checks its shape; null when absent. */
  public Object raw(String name) {
    return values.get(name);
  }

  /** The error a factory raises for a parameter whose shape or value it cannot use. */
  public ParameterException refuse(String name, String why) {
    return new ParameterException(plugin, name, "plugin " + plugin + ": parameter " + name + " " + why);
  }

  /** The first of several accepted spellings that is present (the reference EPP renamed some parameters). */
  public String present(String... spellings) {
    for (String s : spellings) {
      if (values.containsKey(s)) {
        return s;
      }
    }
    return spellings[0];
  }

  private ParameterException bad(String name, Object value, String expected) {
    return new ParameterException(plugin, name, "plugin " + plugin + ": parameter " + name + " is '" + value
        + "', expected " + expected);
  }

  private static String trim(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
