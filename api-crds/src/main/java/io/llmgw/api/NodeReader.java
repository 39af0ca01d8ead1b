package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** Reads typed fields out of one YAML document, turning every surprise into a {@link ConfigException} naming the field. */
final class NodeReader {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  private final String source;
  private final int document;

  NodeReader(String source, int document) {
    this.source = source;
    this.document = document;
  }

  ConfigException error(String field, String problem) {
    return new ConfigException(source, document, field, problem);
  }

  /** A misspelt optional field would otherwise be ignored silently; name it instead. */
  void onlyFields(JsonNode node, String path, Set<String> known) throws ConfigException {
    for (var it = node.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!known.contains(f)) {
        String where = path.isEmpty() ? f : path + "." + f;
        throw error(where, "unknown field (expected one of " + new TreeSet<>(known) + ")");
      }
    }
  }

  JsonNode object(JsonNode parent, String field, String path) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      throw error(path, "is required");
    }
    if (!n.isObject()) {
      throw error(path, "must be a mapping");
    }
    return n;
  }

  JsonNode optionalObject(JsonNode parent, String field, String path) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw error(path, "must be a mapping");
    }
    return n;
  }

  List<JsonNode> list(JsonNode parent, String field, String path, boolean required) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw error(path, "is required");
      }
      return List.of();
    }
    if (!n.isArray()) {
      throw error(path, "must be a list");
    }
    List<JsonNode> out = new ArrayList<>();
    n.forEach(out::add);
    return out;
  }

  String string(JsonNode parent, String field, String path) throws ConfigException {
    String s = optionalString(parent, field, path);
    if (s == null || s.isBlank()) {
      throw error(path, "is required");
    }
    return s;
  }

  String optionalString(JsonNode parent, String field, String path) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw error(path, "must be a string, got " + n.getNodeType().name().toLowerCase(Locale.ROOT));
    }
    return n.asText();
  }

  String name(JsonNode parent, String field, String path) throws ConfigException {
    return name(string(parent, field, path), path);
  }

  String name(String s, String path) throws ConfigException {
    if (!DNS_LABEL.matcher(s).matches()) {
      throw error(path, "'" + s + "' is not a valid name (lower-case letters, digits, '-' and '.')");
    }
    return s;
  }

  int integer(JsonNode parent, String field, String path, int min, int max, int dflt) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isIntegralNumber()) {
      throw error(path, "must be an integer");
    }
    if (!n.canConvertToInt() || n.intValue() < min || n.intValue() > max) {
      // a number past an int's range is out of range, not "not an integer"
      throw error(path, n.asText() + " is out of range (" + min + ".." + max + ")");
    }
    return n.intValue();
  }

  double number(JsonNode parent, String field, String path, double min, double max, double dflt)
      throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isNumber() || !Double.isFinite(n.doubleValue())) {
      throw error(path, "must be a number");
    }
    double v = n.doubleValue();
    if (v < min || v > max) {
      throw error(path, n.asText() + " is out of range (" + min + ".." + max + ")");
    }
    return v;
  }

  boolean bool(JsonNode parent, String field, String path, boolean dflt) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isBoolean()) {
      throw error(path, "must be true or false");
    }
    return n.booleanValue();
  }

  Map<String, String> stringMap(JsonNode parent, String field, String path) throws ConfigException {
    JsonNode n = optionalObject(parent, field, path);
    Map<String, String> out = new LinkedHashMap<>();
    if (n == null) {
      return out;
    }
    for (var it = n.properties().iterator(); it.hasNext();) {
      var e = it.next();
      if (!e.getValue().isValueNode() || e.getValue().isNull()) {
        throw error(path + "." + e.getKey(), "must be a plain value");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
