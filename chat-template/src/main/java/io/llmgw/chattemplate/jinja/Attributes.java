package io.llmgw.chattemplate.jinja;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Jinja's {@code a.b} and {@code a[b]}: {@code .} tries the value's attribute (a dict's or a string's method) before
 * its item, {@code []} the item first; whatever is not there is {@link Undefined}, except that reading from an
 * undefined value is an error.
 */
final class Attributes {
  private Attributes() {
  }

  static Object attribute(Object target, String name) {
    if (target == null) {
      return new Undefined(name);
    }
    return switch (target) {
      case Undefined u -> throw new TemplateException("'" + u.name() + "' is undefined (reading ." + name + ")");
      case Namespace ns -> ns.containsKey(name) ? ns.get(name) : new Undefined(name);
      case Loop loop -> loop.attribute(name);
      case Map<?, ?> map -> {
        Fn method = dictMethod(map, name);
        yield method != null ? method : map.containsKey(name) ? map.get(name) : new Undefined(name);
      }
      case String s -> {
        Fn method = StringMethods.method(s, name);
        yield method != null ? method : new Undefined(name);
      }
      case List<?> list -> {
        Fn method = listMethod(list, name);
        yield method != null ? method : new Undefined(name);
      }
      default -> new Undefined(name);
    };
  }

  static Object item(Object target, Object key) {
    if (target instanceof Undefined u) {
      throw new TemplateException("'" + u.name() + "' is undefined (reading [" + Py.repr(key) + "])");
    }
    boolean integer = key instanceof Long || key instanceof Boolean;
    if (target instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (Py.eq(e.getKey(), key)) {
          return e.getValue();
        }
      }
    } else if (target instanceof List<?> list && integer) {
      long i = Py.toLong(key);
      long at = i < 0 ? list.size() + i : i;
      return at >= 0 && at < list.size() ? list.get((int) at) : new Undefined("[" + i + "]");
    } else if (target instanceof String s && integer) {
      int[] cps = s.codePoints().toArray();
      long i = Py.toLong(key);
      long at = i < 0 ? cps.length + i : i;
      return at >= 0 && at < cps.length ? Character.toString(cps[(int) at]) : new Undefined("[" + i + "]");
    }
    return key instanceof String name ? attribute(target, name) : new Undefined("[" + Py.repr(key) + "]");
  }

  /** Python's {@code target[start:stop:step]} on a list or a string. */
  static Object slice(Object target, Object start, Object stop, Object step) {
    long by = step == null ? 1 : Py.toLong(step);
    if (by == 0) {
      throw new TemplateException("slice step cannot be zero");
    }
    List<Object> items = switch (target) {
      case null -> throw new TemplateException("None cannot be sliced");
      case List<?> l -> new ArrayList<>(l);
      case String s -> Py.iterate(s);
      case Undefined u -> throw u.error();
      default -> throw new TemplateException("a " + Py.typeName(target) + " cannot be sliced");
    };
    int n = items.size();
    long from = bound(start, n, by > 0 ? 0 : n - 1, by);
    long to = bound(stop, n, by > 0 ? n : -1, by);
    List<Object> out = new ArrayList<>();
    for (long i = from; by > 0 ? i < to : i > to; i += by) {
      out.add(items.get((int) i));
    }
    if (target instanceof String) {
      StringBuilder b = new StringBuilder();
      out.forEach(b::append);
      return b.toString();
    }
    return out;
  }

  private static long bound(Object v, int n, long dflt, long step) {
    if (v == null) {
      return dflt;
    }
    long i = Py.toLong(v);
    if (i < 0) {
      i += n;
      if (i < 0) {
        return step > 0 ? 0 : -1;
      }
    } else if (i >= n) {
      return step > 0 ? n : n - 1;
    }
    return i;
  }

  /** A dict's {@code items()}: its key and value pairs, in order. */
  static List<Object> dictItems(Object v) {
    if (!(v instanceof Map<?, ?> map)) {
      throw new TemplateException("items() of a " + Py.typeName(v) + ", not a dict");
    }
    List<Object> pairs = new ArrayList<>();
    map.forEach((k, value) -> pairs.add(Arrays.asList(k, value)));
    return pairs;
  }

  private static Fn dictMethod(Map<?, ?> map, String name) {
    return switch (name) {
      case "items" -> (args, kwargs) -> dictItems(map);
      case "keys" -> (args, kwargs) -> new ArrayList<Object>(map.keySet());
      case "values" -> (args, kwargs) -> new ArrayList<Object>(map.values());
      case "get" -> (args, kwargs) -> {
        if (args.isEmpty()) {
          throw new TemplateException("get() takes a key");
        }
        Object found = item(map, args.get(0));
        return found instanceof Undefined ? (args.size() > 1 ? args.get(1) : null) : found;
      };
      default -> null;
    };
  }

  private static Fn listMethod(List<?> list, String name) {
    return switch (name) {
      case "count" -> (args, kwargs) -> list.stream().filter(x -> Py.eq(x, args.isEmpty() ? null : args.get(0)))
          .count();
      case "index" -> (args, kwargs) -> {
        for (int i = 0; i < list.size(); i++) {
          if (Py.eq(list.get(i), args.isEmpty() ? null : args.get(0))) {
            return (long) i;
          }
        }
        throw new TemplateException("the value is not in the list");
      };
      default -> null;
    };
  }
}
