package io.llmgw.extproc.pluginfile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.api.ConfigException;
import io.llmgw.api.Durations;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads llm-d-router's {@code EndpointPickerConfig} (v0.10, {@code llm-d.ai/v1alpha1}) into this EPP's: each llm-d
 * plugin becomes the plugin here that does the same ({@link LlmdPlugins}), or is absorbed where this EPP does the
 * same thing always (its data layer, its OpenAI parser, its producers); references to absorbed plugins leave the
 * profiles; the sections beside {@code plugins} are checked against what they name. Whatever cannot be honoured is
 * refused naming the plugin, the parameter and the nearest thing this EPP offers (docs/features.md, "From llm-d's
 * router"). Works on the parsed tree, before the file's plugins are read as this EPP's.
 */
final class LlmdTranslation {
  /** The file in this EPP's terms, and the settings it carries beyond plugins. */
  record Result(ObjectNode root, FileSettings settings) {}

  /** What the translation of one file gathers while it walks the plugins. */
  static final class State {
    final String source;
    final Consumer<String> warn;
    final Map<String, String> typeByName = new HashMap<>();
    final Map<String, ObjectNode> paramsByName = new HashMap<>();
    final Set<String> absorbed = new HashSet<>();
    Integer kvPort;
    Integer kvReplayPort;
    String kvTopic;
    Duration scrapeInterval;

    State(String source, Consumer<String> warn) {
      this.source = source;
      this.warn = warn;
    }

    ConfigException error(String field, String problem) {
      return new ConfigException(source, 0, field, problem);
    }

    /** Turns the pods' KV events on, at llm-d's default port unless the file names one. */
    void followKvEvents() {
      if (kvPort == null) {
        kvPort = LlmdPlugins.DEFAULT_KV_EVENTS_PORT;
      }
    }

    void scrapeInterval(LlmdParameters p, String text) throws ConfigException {
      Duration d = Durations.parse(text);
      if (d == null || d.isZero()) {
        throw p.refuse("interval", "'" + text + "' is not a positive duration such as 50ms");
      }
      scrapeInterval = d;
    }
  }

  private LlmdTranslation() {}

  static Result translate(String source, ObjectNode root, Consumer<String> warn) throws ConfigException {
    State state = new State(source, warn);
    JsonNode plugins = root.path("plugins");
    if (plugins.isArray()) {
      for (int i = 0; i < plugins.size(); i++) {
        JsonNode p = plugins.get(i);
        if (p.isObject() && p.path("type").isTextual()) {
          String type = p.path("type").asText().trim();
          String name = p.path("name").isTextual() ? p.path("name").asText().trim() : type;
          state.typeByName.put(name, type);
          state.paramsByName.put(name, p.path("parameters").isObject() ? (ObjectNode) p.path("parameters")
              : root.objectNode());
        }
      }
      ArrayNode ours = root.arrayNode();
      for (int i = 0; i < plugins.size(); i++) {
        JsonNode p = plugins.get(i);
        JsonNode translated = p.isObject() ? LlmdPlugins.translate(state, (ObjectNode) p, "plugins[" + i + "]") : p;
        if (translated != null) {
          ours.add(translated);
        }
      }
      root.set("plugins", ours);
    }
    dropAbsorbedRefs(root.path("schedulingProfiles"), state.absorbed);
    LlmdSections.check(state, root);
    return new Result(root, new FileSettings(state.kvPort, state.kvReplayPort, state.kvTopic, state.scrapeInterval));
  }

  private static void dropAbsorbedRefs(JsonNode profiles, Set<String> absorbed) {
    if (!profiles.isArray()) {
      return;
    }
    for (JsonNode profile : profiles) {
      JsonNode refs = profile.path("plugins");
      if (!refs.isArray()) {
        continue;
      }
      for (int i = refs.size() - 1; i >= 0; i--) {
        if (absorbed.contains(refs.get(i).path("pluginRef").asText(""))) {
          ((ArrayNode) refs).remove(i);
        }
      }
    }
  }
}
