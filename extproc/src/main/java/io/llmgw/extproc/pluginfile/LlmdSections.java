package io.llmgw.extproc.pluginfile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.api.ConfigException;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sections of llm-d's file beside {@code plugins}: each is read, what it names is checked against the plugins
 * list, and what this EPP does otherwise is refused with the flag that sets it. The sections leave the tree once
 * checked: their plugins were absorbed or translated already.
 */
final class LlmdSections {
  /** Gates for what this EPP always does. */
  private static final Set<String> GATES_ALWAYS_ON = Set.of("flowControl", "haPopulateNonLeaderDatastore");
  private static final Set<String> PARSERS = Set.of("openai-parser", "vllmhttp-parser", "passthrough-parser");

  private LlmdSections() {}

  static void check(LlmdTranslation.State s, ObjectNode root) throws ConfigException {
    JsonNode gates = root.path("featureGates");
    if (!gates.isMissingNode() && !gates.isNull()) {
      if (!gates.isArray()) {
        throw s.error("featureGates", "must be a list of gate names");
      }
      for (JsonNode g : gates) {
        if (!GATES_ALWAYS_ON.contains(g.asText())) {
          throw s.error("featureGates", "gate '" + g.asText() + "' is not known here; this EPP has "
              + new TreeSet<>(GATES_ALWAYS_ON) + " on always");
        }
      }
    }
    JsonNode handler = root.path("requestHandler");
    if (!handler.isMissingNode() && !handler.isNull()) {
      only(s, handler, "requestHandler", Set.of("parsers"));
      refs(s, handler.path("parsers"), "requestHandler.parsers", PARSERS);
    }
    JsonNode parser = root.path("parser");
    if (!parser.isMissingNode() && !parser.isNull()) {
      only(s, parser, "parser", Set.of("pluginRef"));
      ref(s, parser.path("pluginRef"), "parser.pluginRef", PARSERS);
    }
    JsonNode data = root.path("dataLayer");
    if (!data.isMissingNode() && !data.isNull()) {
      only(s, data, "dataLayer", Set.of("injectDefaults", "sources"));
      JsonNode sources = data.path("sources");
      for (int i = 0; i < sources.size(); i++) {
        String at = "dataLayer.sources[" + i + "]";
        only(s, sources.get(i), at, Set.of("pluginRef", "extractors"));
        ref(s, sources.get(i).path("pluginRef"), at + ".pluginRef", null);
        refs(s, sources.get(i).path("extractors"), at + ".extractors", null);
      }
    }
    for (String section : new String[] {"flowControl", "saturationDetector"}) {
      JsonNode n = root.path(section);
      if (!n.isMissingNode() && !n.isNull() && !(n.isObject() && n.isEmpty())) {
        throw s.error(section, "is not read from this file; set flow control and saturation with serve's --flow-* "
            + "and --saturation-* flags (--flow-ttl, --flow-max-requests, --saturation-queue-limit, …), "
            + "docs/running.md");
      }
    }
    for (String section : new String[] {"featureGates", "requestHandler", "parser", "dataLayer", "flowControl",
        "saturationDetector"}) {
      root.remove(section);
    }
  }

  private static void refs(LlmdTranslation.State s, JsonNode list, String path, Set<String> types)
      throws ConfigException {
    if (list.isMissingNode() || list.isNull()) {
      return;
    }
    if (!list.isArray()) {
      throw s.error(path, "must be a list");
    }
    for (int i = 0; i < list.size(); i++) {
      only(s, list.get(i), path + "[" + i + "]", Set.of("pluginRef"));
      ref(s, list.get(i).path("pluginRef"), path + "[" + i + "].pluginRef", types);
    }
  }

  /** A reference to a plugin of the list, of one of {@code types} when given. */
  private static void ref(LlmdTranslation.State s, JsonNode ref, String path, Set<String> types)
      throws ConfigException {
    String name = ref.asText("");
    String type = s.typeByName.get(name);
    if (type == null) {
      throw s.error(path, "names '" + name + "', which the plugins list does not define");
    }
    if (types != null && !types.contains(type)) {
      throw s.error(path, "names '" + name + "', a " + type + ", which is not a parser this EPP offers " + types);
    }
  }

  private static void only(LlmdTranslation.State s, JsonNode n, String path, Set<String> known)
      throws ConfigException {
    if (!n.isObject()) {
      throw s.error(path, "must be a mapping");
    }
    for (var it = n.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!known.contains(f)) {
        throw s.error(path + "." + f, "unknown field (expected one of " + new TreeSet<>(known) + ")");
      }
    }
  }
}
