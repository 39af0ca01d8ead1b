package io.llmgw.chattemplate.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Python's {@code str} methods that chat templates call, with Python's idea of whitespace (public for {@link #strip}). */
public final class StringMethods {
  private StringMethods() {
  }

  static Fn method(String s, String name) {
    return switch (name) {
      case "startswith" -> (args, kw) -> affix(s, arg(args, 0, name), true);
      case "endswith" -> (args, kw) -> affix(s, arg(args, 0, name), false);
      case "strip" -> (args, kw) -> strip(s, chars(args), true, true);
      case "lstrip" -> (args, kw) -> strip(s, chars(args), true, false);
      case "rstrip" -> (args, kw) -> strip(s, chars(args), false, true);
      case "split" -> (args, kw) -> split(s, separator(args, kw), maxSplit(args, kw));
      case "upper" -> (args, kw) -> s.toUpperCase(Locale.ROOT);
      case "lower" -> (args, kw) -> s.toLowerCase(Locale.ROOT);
      case "title" -> (args, kw) -> title(s);
      case "capitalize" -> (args, kw) -> s.isEmpty()
          ? s
          : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
      case "replace" -> (args, kw) -> replace(s, str(arg(args, 0, name)), str(arg(args, 1, name)),
          args.size() > 2 ? Py.toLong(args.get(2)) : -1);
      case "find" -> (args, kw) -> (long) codePointIndex(s, s.indexOf(str(arg(args, 0, name))));
      case "rfind" -> (args, kw) -> (long) codePointIndex(s, s.lastIndexOf(str(arg(args, 0, name))));
      case "count" -> (args, kw) -> count(s, str(arg(args, 0, name)));
      case "join" -> (args, kw) -> {
        StringBuilder b = new StringBuilder();
        boolean first = true;
        for (Object part : Py.iterate(arg(args, 0, name))) {
          b.append(first ? "" : s).append(str(part));
          first = false;
        }
        return b.toString();
      };
      case "splitlines" -> (args, kw) -> new ArrayList<Object>(s.lines().toList());
      case "isdigit" -> (args, kw) -> !s.isEmpty() && s.codePoints().allMatch(Character::isDigit);
      case "isalpha" -> (args, kw) -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
      case "isspace" -> (args, kw) -> !s.isEmpty() && s.codePoints().allMatch(StringMethods::isSpace);
      case "isupper" -> (args, kw) -> s.chars().anyMatch(Character::isUpperCase)
          && s.chars().noneMatch(Character::isLowerCase);
      case "islower" -> (args, kw) -> s.chars().anyMatch(Character::isLowerCase)
          && s.chars().noneMatch(Character::isUpperCase);
      default -> null;
    };
  }

  /** Python's {@code str.isspace} for one code point. */
  static boolean isSpace(int cp) {
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f
        || cp == 0x3000;
  }

  /** Python's {@code strip}: whitespace, or any of {@code chars} when given. */
  public static String strip(String s, String chars, boolean left, boolean right) {
    int start = 0;
    int end = s.length();
    while (left && start < end) {
      int cp = s.codePointAt(start);
      if (!(chars == null ? isSpace(cp) : chars.indexOf(cp) >= 0)) {
        break;
      }
      start += Character.charCount(cp);
    }
    while (right && end > start) {
      int cp = s.codePointBefore(end);
      if (!(chars == null ? isSpace(cp) : chars.indexOf(cp) >= 0)) {
        break;
      }
      end -= Character.charCount(cp);
    }
    return s.substring(start, end);
  }

  private static Object arg(List<Object> args, int i, String method) {
    if (args.size() <= i) {
      throw new TemplateException(method + "() is missing an argument");
    }
    return args.get(i);
  }

  private static String str(Object v) {
    if (!(v instanceof String s)) {
      throw new TemplateException("a string was expected, not " + Py.typeName(v));
    }
    return s;
  }

  private static String chars(List<Object> args) {
    return args.isEmpty() || args.get(0) == null ? null : str(args.get(0));
  }

  private static boolean affix(String s, Object affix, boolean prefix) {
    if (affix instanceof List<?> options) {
      return options.stream().anyMatch(o -> affix(s, o, prefix));
    }
    return prefix ? s.startsWith(str(affix)) : s.endsWith(str(affix));
  }

  private static String separator(List<Object> args, Map<String, Object> kw) {
    Object sep = !args.isEmpty() ? args.get(0) : kw.get("sep");
    if (sep != null && str(sep).isEmpty()) {
      throw new TemplateException("empty separator");
    }
    return (String) sep;
  }

  private static long maxSplit(List<Object> args, Map<String, Object> kw) {
    Object max = args.size() > 1 ? args.get(1) : kw.get("maxsplit");
    return max == null ? -1 : Py.toLong(max);
  }

  /** Python's {@code split}: on a separator, or on runs of whitespace dropping empty pieces. */
  static List<Object> split(String s, String sep, long maxSplit) {
    List<Object> out = new ArrayList<>();
    if (sep != null) {
      int from = 0;
      int at;
      while ((maxSplit < 0 || out.size() < maxSplit) && (at = s.indexOf(sep, from)) >= 0) {
        out.add(s.substring(from, at));
        from = at + sep.length();
      }
      out.add(s.substring(from));
      return out;
    }
    int i = 0;
    while (i < s.length()) {
      while (i < s.length() && isSpace(s.codePointAt(i))) {
        i += Character.charCount(s.codePointAt(i));
      }
      if (i >= s.length()) {
        break;
      }
      if (maxSplit >= 0 && out.size() == maxSplit) {
        out.add(strip(s.substring(i), null, false, true));
        return out;
      }
      int start = i;
      while (i < s.length() && !isSpace(s.codePointAt(i))) {
        i += Character.charCount(s.codePointAt(i));
      }
      out.add(s.substring(start, i));
    }
    return out;
  }

  private static String replace(String s, String old, String with, long count) {
    if (count < 0) {
      return s.replace(old, with);
    }
    StringBuilder b = new StringBuilder();
    int from = 0;
    for (long n = 0; n < count; n++) {
      int at = s.indexOf(old, from);
      if (at < 0) {
        break;
      }
      b.append(s, from, at).append(with);
      from = at + old.length();
      if (old.isEmpty()) {
        if (from < s.length()) {
          b.append(s.charAt(from));
        }
        from++;
      }
    }
    return from <= s.length() ? b.append(s.substring(from)).toString() : b.toString();
  }

  private static long count(String s, String sub) {
    if (sub.isEmpty()) {
      return Py.length(s) + 1;
    }
    long n = 0;
    for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
      n++;
    }
    return n;
  }

  private static int codePointIndex(String s, int charIndex) {
    return charIndex < 0 ? -1 : s.codePointCount(0, charIndex);
  }

  static String title(String s) {
    StringBuilder b = new StringBuilder();
    boolean previousCased = false;
    for (int i = 0; i < s.length(); i = s.offsetByCodePoints(i, 1)) {
      int cp = s.codePointAt(i);
      b.appendCodePoint(previousCased ? Character.toLowerCase(cp) : Character.toTitleCase(cp));
      previousCased = Character.isLetter(cp);
    }
    return b.toString();
  }
}
