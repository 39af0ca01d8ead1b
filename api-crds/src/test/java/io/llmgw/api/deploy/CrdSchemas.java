package io.llmgw.api.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The generated CRDs' OpenAPI schemas as JSON-schema validators, keyed by apiVersion/kind. Validation is strict like
 * {@code kubectl apply} (server-side field validation): a field the schema does not declare is an error, not pruned.
 */
final class CrdSchemas {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Map<String, JsonSchema> byKind = new HashMap<>();

  CrdSchemas(Path crdDir) throws IOException {
    JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4);
    try (Stream<Path> files = Files.list(crdDir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yml")).toList()) {
        JsonNode crd = YAML.readTree(f.toFile());
        String group = crd.at("/spec/group").asText();
        String kind = crd.at("/spec/names/kind").asText();
        for (JsonNode version : crd.at("/spec/versions")) {
          ObjectNode schema = (ObjectNode) version.at("/schema/openAPIV3Schema").deepCopy();
          ObjectNode props = (ObjectNode) schema.get("properties");
          props.putObject("apiVersion").put("type", "string");
          props.putObject("kind").put("type", "string");
          props.putObject("metadata").put("type", "object");
          strict(schema);
          byKind.put(group + "/" + version.get("name").asText() + " " + kind, factory.getSchema(schema));
        }
      }
    }
  }

  boolean knows(JsonNode object) {
    return byKind.containsKey(key(object));
  }

  /** The schema's complaints about one object; empty when it is valid. */
  List<String> validate(JsonNode object) {
    JsonSchema schema = byKind.get(key(object));
    if (schema == null) {
      return List.of("no CRD for " + key(object));
    }
    return schema.validate(object).stream().map(ValidationMessage::getMessage).sorted().toList();
  }

  private static String key(JsonNode object) {
    return object.path("apiVersion").asText() + " " + object.path("kind").asText();
  }

  private static void strict(JsonNode schema) {
    if (schema instanceof ObjectNode o && o.has("properties") && !o.has("additionalProperties")
        && !o.has("x-kubernetes-preserve-unknown-fields")) {
      o.put("additionalProperties", false);
    }
    schema.forEach(CrdSchemas::strict);
  }
}
