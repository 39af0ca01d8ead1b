package io.llmgw.extproc.pluginfile;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.llmgw.api.ConfigException;
import io.llmgw.api.YamlLocations;
import io.llmgw.picker.PluginId;
import io.llmgw.picker.config.ParameterException;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.ProfileSpec;
import io.llmgw.picker.config.SchedulingConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Reads an {@code EndpointPickerConfig}: llm-d-router's ({@code llm-d.ai/v1alpha1}, or the older {@code
 * inference.networking.x-k8s.io/v1alpha1}), whose plugin types and sections are first read as this EPP's
 * ({@link LlmdTranslation}), and this EPP's own, in the same shape ({@code plugins} by type with parameters, {@code
 * schedulingProfiles} referencing them with weights). Every field it does not know is an error naming the field.
 */
public final class PluginConfigFile {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> TOP = Set.of("apiVersion", "kind", "plugins", "schedulingProfiles",
      "featureGates", "requestHandler", "parser", "dataLayer", "flowControl", "saturationDetector");
  private static final Set<String> API_VERSIONS = Set.of("llm-d.ai/v1alpha1", "inference.networking.x-k8s.io/v1alpha1");

  /** A file read: its plugins and profiles, and the settings its other sections carry. */
  public record Loaded(SchedulingConfig config, FileSettings settings) {}

  private PluginConfigFile() {}

  /** @param warn told of what the file asks that this EPP does differently */
  public static SchedulingConfig load(Path file, Consumer<String> warn) throws ConfigException {
    return loadFile(file, warn).config();
  }

  /** As {@link #load}, with the settings beside the plugins. */
  public static Loaded loadFile(Path file, Consumer<String> warn) throws ConfigException {
    String source = file.toString();
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException(source, 0, "", "cannot be read: " + e.getMessage());
    }
    return parseFile(source, text, warn);
  }

  /** Reads a configuration from its text ({@code source} names it in messages). */
  public static SchedulingConfig parse(String source, String yaml, Consumer<String> warn) throws ConfigException {
    return parseFile(source, yaml, warn).config();
  }

  /** As {@link #parse}, with the settings beside the plugins. */
  public static Loaded parseFile(String source, String yaml, Consumer<String> warn) throws ConfigException {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JacksonException e) {
      String tab = YamlLocations.tabIndented(yaml);
      throw new ConfigException(source, 0, "", tab != null ? "not valid YAML: " + tab
          : "not valid YAML" + YamlLocations.brokenAt(e) + ": " + e.getOriginalMessage().lines().findFirst()
              .orElse(""));
    }
    try {
      return parse(source, root, warn);
    } catch (ConfigException e) {
      throw e.locatedIn(yaml);
    }
  }

  /**
   * Where the parameter a plugin refused sits in the file's text, {@code " (line L, column C)"}, or nothing when it
   * cannot be found: plugins check their parameters when the lifecycle is assembled, after the file was read.
   */
  public static String where(String yaml, ParameterException refused) {
    try {
      JsonNode plugins = YAML.readTree(yaml).path("plugins");
      for (int i = 0; i < plugins.size(); i++) {
        String type = plugins.get(i).path("type").asText("");
        String name = plugins.get(i).path("name").asText(type);
        if (new PluginId(type, name).toString().equals(refused.plugin())) {
          YamlLocations.Position at = YamlLocations.locate(yaml, 1,
              "plugins[" + i + "].parameters" + (refused.parameter().isEmpty() ? "" : "[" + refused.parameter() + "]"));
          return at == null ? "" : " (line " + at.line() + ", column " + at.column() + ")";
        }
      }
    } catch (JacksonException e) {
      // the file was read before; a file changed since then is simply not placed
    }
    return "";
  }

  static Loaded parse(String source, JsonNode parsed, Consumer<String> warn) throws ConfigException {
    if (parsed == null || !parsed.isObject()) {
      throw error(source, "", "must be a mapping with kind: EndpointPickerConfig");
    }
    if (!"EndpointPickerConfig".equals(parsed.path("kind").asText(null))) {
      throw error(source, "kind", "must be EndpointPickerConfig, not " + parsed.path("kind"));
    }
    JsonNode api = parsed.path("apiVersion");
    if (!api.isMissingNode() && !API_VERSIONS.contains(api.asText())) {
      throw error(source, "apiVersion", "'" + api.asText() + "' is not supported, expected one of "
          + new TreeSet<>(API_VERSIONS));
    }
    for (var it = parsed.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!TOP.contains(f)) {
        throw error(source, f, "unknown field (expected one of " + new TreeSet<>(TOP) + ")");
      }
    }
    LlmdTranslation.Result translated = LlmdTranslation.translate(source, ((ObjectNode) parsed).deepCopy(), warn);
    JsonNode root = translated.root();
    List<PluginSpec> plugins = new ArrayList<>();
    JsonNode list = list(source, root, "plugins");
    for (int i = 0; i < list.size(); i++) {
      plugins.add(plugin(source, list.get(i), "plugins[" + i + "]"));
    }
    List<ProfileSpec> profiles = new ArrayList<>();
    JsonNode profileList = list(source, root, "schedulingProfiles");
    for (int i = 0; i < profileList.size(); i++) {
      profiles.add(profile(source, profileList.get(i), "schedulingProfiles[" + i + "]"));
    }
    return new Loaded(new SchedulingConfig(source, plugins, profiles), translated.settings());
  }

  private static PluginSpec plugin(String source, JsonNode n, String path) throws ConfigException {
    only(source, n, path, Set.of("name", "type", "parameters"));
    String type = text(source, n, "type", path, true);
    JsonNode params = n.get("parameters");
    Map<String, Object> parameters = new LinkedHashMap<>();
    if (params != null && !params.isNull()) {
      if (!params.isObject()) {
        throw error(source, path + ".parameters", "must be a mapping");
      }
      params.fields().forEachRemaining(e -> parameters.put(e.getKey(), value(e.getValue())));
    }
    return new PluginSpec(text(source, n, "name", path, false), type, parameters);
  }

  private static ProfileSpec profile(String source, JsonNode n, String path) throws ConfigException {
    only(source, n, path, Set.of("name", "plugins"));
    String name = text(source, n, "name", path, true);
    JsonNode refs = list(source, n, "plugins", path + ".plugins");
    List<ProfileSpec.Ref> out = new ArrayList<>();
    for (int i = 0; i < refs.size(); i++) {
      String at = path + ".plugins[" + i + "]";
      JsonNode r = refs.get(i);
      only(source, r, at, Set.of("pluginRef", "weight"));
      JsonNode w = r.get("weight");
      if (w != null && !w.isNumber()) {
        throw error(source, at + ".weight", "must be a number, not " + w);
      }
      out.add(new ProfileSpec.Ref(text(source, r, "pluginRef", at, true), w == null ? null : w.asDouble()));
    }
    return new ProfileSpec(name, out);
  }

  private static Object value(JsonNode v) {
    if (v.isNumber()) {
      return v.numberValue();
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isValueNode()) {
      return v.asText();
    }
    // a mapping or a list, as plain maps and lists for the factories that take structured parameters
    return CONTAINERS.convertValue(v, Object.class);
  }

  private static final ObjectMapper CONTAINERS = new ObjectMapper();

  private static JsonNode list(String source, JsonNode parent, String field) throws ConfigException {
    return list(source, parent, field, field);
  }

  private static JsonNode list(String source, JsonNode parent, String field, String path) throws ConfigException {
    JsonNode n = parent.get(field);
    if (n == null || !n.isArray()) {
      throw error(source, path, n == null ? "is required" : "must be a list");
    }
    return n;
  }

  private static String text(String source, JsonNode n, String field, String path, boolean required)
      throws ConfigException {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw error(source, path + "." + field, "is required");
      }
      return null;
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw error(source, path + "." + field, "must be a non-empty string");
    }
    return v.asText().trim();
  }

  private static void only(String source, JsonNode n, String path, Set<String> known) throws ConfigException {
    if (!n.isObject()) {
      throw error(source, path, "must be a mapping");
    }
    for (var it = n.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!known.contains(f)) {
        throw error(source, path + "." + f, "unknown field (expected one of " + new TreeSet<>(known) + ")");
      }
    }
  }

  private static ConfigException error(String source, String field, String problem) {
    return new ConfigException(source, 0, field, problem);
  }
}
