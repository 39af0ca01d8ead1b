package io.llmgw.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a field named as the loaders name it ({@code spec.targetPorts[0].number}, {@code metadata.annotations[a.b/c]})
 * sits in a YAML text: the line and column of its key, or of the deepest part of the path that exists (a missing
 * required field points at the mapping that lacks it). Read again only when a document was refused, so the loaders'
 * tree parse keeps no positions.
 */
public final class YamlLocations {
  private static final YAMLFactory FACTORY = new YAMLFactory();

  /** A 1-based line and column. */
  public record Position(int line, int column) {}

  private YamlLocations() {}

  /**
   * The position of {@code field} in document {@code document} (1-based, counted as the loaders count them), or null
   * when the text cannot be read that far.
   */
  public static Position locate(String yaml, int document, String field) {
    List<String> path = segments(field);
    Position found = null;
    try (JsonParser p = FACTORY.createParser(yaml)) {
      for (int doc = 1; doc <= document; doc++) {
        if (p.nextToken() == null) {
          return null;
        }
        if (doc < document) {
          p.skipChildren();
        }
      }
      found = position(p.currentTokenLocation());
      for (String segment : path) {
        Position next = step(p, segment);
        if (next == null) {
          break;
        }
        found = next;
      }
      return found;
    } catch (IOException | RuntimeException e) {
      return found; // as far as the text could be read: the loader's own message says where it broke
    }
  }

  /** Moves from the current container's start onto the value of {@code segment}; its key's position, or null. */
  private static Position step(JsonParser p, String segment) throws IOException {
    if (p.currentToken() == JsonToken.START_OBJECT) {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        Position key = position(p.currentTokenLocation());
        boolean match = segment.equals(p.currentName());
        p.nextToken();
        if (match) {
          return key;
        }
        p.skipChildren();
      }
      return null;
    }
    if (p.currentToken() == JsonToken.START_ARRAY && segment.chars().allMatch(Character::isDigit)
        && !segment.isEmpty()) {
      int wanted = Integer.parseInt(segment);
      for (int i = 0; p.nextToken() != JsonToken.END_ARRAY; i++) {
        if (i == wanted) {
          return position(p.currentTokenLocation());
        }
        p.skipChildren();
      }
    }
    return null;
  }

  /**
   * The first line indented with a tab, named ("line L, column C: a tab in the indentation ..."), or null. YAML indents
   * with spaces only, and its parser reports a tab where the token before it ended, often the line above.
   */
  public static String tabIndented(String yaml) {
    int line = 1;
    int start = 0;
    while (start <= yaml.length()) {
      int end = yaml.indexOf('\n', start);
      end = end < 0 ? yaml.length() : end;
      for (int i = start; i < end && (yaml.charAt(i) == ' ' || yaml.charAt(i) == '\t'); i++) {
        if (yaml.charAt(i) == '\t') {
          return "line " + line + ", column " + (i - start + 1) + ": a tab in the indentation (YAML indents with "
              + "spaces only)";
        }
      }
      line++;
      start = end + 1;
    }
    return null;
  }

  /** Where a parse broke, " at line L, column C" (the text's own counting), or nothing if unknown. */
  public static String brokenAt(Throwable e) {
    JsonProcessingException j = e instanceof JsonProcessingException p ? p
        : e.getCause() instanceof JsonProcessingException p ? p : null;
    Position at = j == null ? null : position(j.getLocation());
    return at == null ? "" : " at line " + at.line() + ", column " + at.column();
  }

  private static Position position(JsonLocation location) {
    return location == null || location.getLineNr() < 1 ? null
        : new Position(location.getLineNr(), location.getColumnNr());
  }

  /** {@code a.b[0].c[x.y/z]} as {@code a, b, 0, c, x.y/z}: a bracket holds an index or a key that may hold dots. */
  static List<String> segments(String field) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '[') {
        int close = field.indexOf(']', i);
        if (close < 0) {
          break;
        }
        flush(current, out);
        out.add(field.substring(i + 1, close));
        i = close;
      } else if (c == '.') {
        flush(current, out);
      } else {
        current.append(c);
      }
    }
    flush(current, out);
    return out;
  }

  private static void flush(StringBuilder current, List<String> out) {
    if (!current.isEmpty()) {
      out.add(current.toString());
      current.setLength(0);
    }
  }
}
