package io.llmgw.extproc.pluginfile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.api.ConfigException;
import java.util.Set;
import java.util.TreeSet;

/**
 * One llm-d plugin's parameters as the file gives them (nested mappings included), read by a translation: each one is
 * honoured, translated, or refused naming the plugin, the parameter and the nearest thing this EPP offers.
 */
final class LlmdParameters {
  private final String source;
  private final String path;
  private final String plugin;
  private final ObjectNode values;

  LlmdParameters(String source, String path, String plugin, ObjectNode values) {
    this.source = source;
    this.path = path;
    this.plugin = plugin;
    this.values = values;
  }

  /** The parameter, or a missing node. */
  JsonNode get(String dotted) {
    JsonNode n = values;
    for (String part : dotted.split("\\.")) {
      n = n.path(part);
    }
    return n;
  }

  boolean has(String dotted) {
    JsonNode n = get(dotted);
    return !n.isMissingNode() && !n.isNull();
  }

  /** Refuses every parameter (at the top, or under {@code under}) not named here. */
  void allowOnly(String under, String... names) throws ConfigException {
    JsonNode n = under.isEmpty() ? values : get(under);
    if (!n.isObject()) {
      if (n.isMissingNode() || n.isNull()) {
        return;
      }
      throw refuse(under, "must be a mapping");
    }
    Set<String> known = Set.of(names);
    for (var it = n.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!known.contains(f)) {
        throw refuse((under.isEmpty() ? "" : under + ".") + f, "is not a parameter this EPP knows for " + plugin
            + (known.isEmpty() ? " (it takes none)" : "; it takes " + new TreeSet<>(known)));
      }
    }
  }

  /** A parameter this EPP cannot honour, with the nearest thing it offers. */
  ConfigException refuse(String parameter, String why) {
    return new ConfigException(source, 0, path + ".parameters" + (parameter.isEmpty() ? "" : "." + parameter),
        "plugin " + plugin + (parameter.isEmpty() ? "" : ", parameter " + parameter) + ": " + why);
  }

  /** Refuses the parameter unless absent or {@code accepted}. */
  void onlyValue(String parameter, String accepted, String nearest) throws ConfigException {
    JsonNode v = get(parameter);
    if (has(parameter) && !v.asText().equals(accepted)) {
      throw refuse(parameter, "'" + v.asText() + "' cannot be honoured; " + nearest);
    }
  }

  /** Refuses the parameter if present: this EPP has no counterpart to tune. */
  void absent(String parameter, String nearest) throws ConfigException {
    if (has(parameter)) {
      throw refuse(parameter, "cannot be honoured; " + nearest);
    }
  }

  int integer(String parameter, int fallback, int min, int max) throws ConfigException {
    JsonNode v = get(parameter);
    if (!has(parameter)) {
      return fallback;
    }
    if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min || v.asInt() > max) {
      throw refuse(parameter, "'" + v.asText() + "' is not a whole number between " + min + " and " + max);
    }
    return v.asInt();
  }

  String text(String parameter) {
    return has(parameter) ? get(parameter).asText() : null;
  }
}
