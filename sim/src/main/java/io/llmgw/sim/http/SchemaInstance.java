package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A JSON value that validates against a JSON Schema, made up as an engine with structured outputs would constrain
 * its sampling to: every property an object declares (OpenAI's strict mode requires them all), array lengths, string
 * lengths and formats, number ranges, enums and constants, {@code anyOf}/{@code oneOf} (one branch), {@code allOf}
 * (object branches merged) and local {@code $ref}s ({@code #/$defs/...}, {@code #/definitions/...}, {@code #}).
 * Simpler than a grammar: {@code pattern}, {@code multipleOf} on non-integers, {@code uniqueItems} of non-enum items
 * and {@code not} are not followed; a recursive schema is cut at depth {@value #MAX_DEPTH} with its required minimum.
 */
final class SchemaInstance {
  static final int MAX_DEPTH = 8;
  /** Past this, a schema that requires itself has no finite instance: refused, not recursed into forever. */
  static final int HARD_DEPTH = 64;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String[] WORDS = {"alpha", "bravo", "cedar", "delta", "ember", "fjord", "glade", "harbor",
      "iris", "juniper", "kelp", "lumen", "meadow", "nectar", "orbit", "pebble", "quartz", "river", "summit", "tundra"};

  private final JsonNode root;
  private final SplittableRandom random;

  private SchemaInstance(JsonNode root, SplittableRandom random) {
    this.root = root;
    this.random = random;
  }

  /** An instance of {@code schema}; for no schema (OpenAI's {@code json_object}), an object with one string. */
  static JsonNode of(JsonNode schema, SplittableRandom random) {
    if (schema == null || schema.isNull() || schema.isMissingNode()) {
      ObjectNode any = NODES.objectNode();
      any.put("response", new SchemaInstance(null, random).words(3));
      return any;
    }
    if (!schema.isObject() && !schema.isBoolean()) {
      throw new IllegalArgumentException("a JSON schema must be an object");
    }
    return new SchemaInstance(schema, random).value(schema, 0);
  }

  private JsonNode value(JsonNode schema, int depth) {
    if (depth > HARD_DEPTH) {
      throw new IllegalArgumentException("the schema requires itself: it has no instance within " + HARD_DEPTH
          + " levels");
    }
    if (schema == null || schema.isBoolean() || !schema.isObject() || schema.isEmpty()) {
      return NODES.textNode(words(1));
    }
    if (schema.has("$ref")) {
      return value(resolve(schema.get("$ref").asText()), depth + 1);
    }
    if (schema.has("const")) {
      return schema.get("const");
    }
    if (schema.has("enum") && schema.get("enum").isArray() && !schema.get("enum").isEmpty()) {
      JsonNode values = schema.get("enum");
      return values.get(random.nextInt(values.size()));
    }
    for (String branches : new String[] {"anyOf", "oneOf"}) {
      JsonNode options = schema.get(branches);
      if (options != null && options.isArray() && !options.isEmpty()) {
        return value(pick(options, depth), depth + 1);
      }
    }
    if (schema.has("allOf") && schema.get("allOf").isArray()) {
      return value(merged(schema), depth + 1);
    }
    return switch (type(schema)) {
      case "null" -> NODES.nullNode();
      case "boolean" -> NODES.booleanNode(random.nextBoolean());
      case "integer" -> NODES.numberNode(integer(schema));
      case "number" -> NODES.numberNode(number(schema));
      case "array" -> array(schema, depth);
      case "object" -> object(schema, depth);
      default -> NODES.textNode(string(schema));
    };
  }

  /** A branch: past the depth limit the first that is not an object or array, so recursion ends. */
  private JsonNode pick(JsonNode options, int depth) {
    if (depth >= MAX_DEPTH) {
      for (JsonNode o : options) {
        String t = o.isObject() && !o.has("$ref") ? type(o) : "object";
        if (!t.equals("object") && !t.equals("array")) {
          return o;
        }
      }
    }
    return options.get(depth >= MAX_DEPTH ? 0 : random.nextInt(options.size()));
  }

  private JsonNode resolve(String ref) {
    if (!ref.startsWith("#")) {
      throw new IllegalArgumentException("only local $refs are followed, not " + ref);
    }
    JsonNode target = ref.equals("#") ? root : root.at(ref.substring(1));
    if (target.isMissingNode()) {
      throw new IllegalArgumentException("$ref " + ref + " points at nothing in the schema");
    }
    return target;
  }

  /** The schema's type: declared (the first that is not null, when several are), else what its keywords imply. */
  private String type(JsonNode schema) {
    JsonNode t = schema.get("type");
    if (t != null && t.isTextual()) {
      return t.asText();
    }
    if (t != null && t.isArray() && !t.isEmpty()) {
      for (JsonNode each : t) {
        if (!each.asText().equals("null")) {
          return each.asText();
        }
      }
      return "null";
    }
    if (schema.has("properties") || schema.has("required") || schema.has("additionalProperties")) {
      return "object";
    }
    if (schema.has("items") || schema.has("prefixItems")) {
      return "array";
    }
    if (schema.has("minimum") || schema.has("maximum")) {
      return "number";
    }
    return "string";
  }

  private JsonNode merged(JsonNode schema) {
    ObjectNode out = NODES.objectNode();
    ObjectNode properties = NODES.objectNode();
    Set<String> required = new LinkedHashSet<>();
    List<JsonNode> parts = new ArrayList<>();
    schema.get("allOf").forEach(parts::add);
    ObjectNode self = schema.deepCopy();
    self.remove("allOf");
    parts.add(self);
    for (JsonNode part : parts) {
      JsonNode p = part.has("$ref") ? resolve(part.get("$ref").asText()) : part;
      p.fields().forEachRemaining(e -> {
        switch (e.getKey()) {
          case "properties" -> properties.setAll((ObjectNode) e.getValue());
          case "required" -> e.getValue().forEach(r -> required.add(r.asText()));
          default -> out.set(e.getKey(), e.getValue());
        }
      });
    }
    if (!properties.isEmpty()) {
      out.set("properties", properties);
    }
    if (!required.isEmpty()) {
      ArrayNode r = out.putArray("required");
      required.forEach(r::add);
    }
    return out;
  }

  private JsonNode object(JsonNode schema, int depth) {
    ObjectNode out = NODES.objectNode();
    JsonNode properties = schema.path("properties");
    Set<String> required = new LinkedHashSet<>();
    schema.path("required").forEach(r -> required.add(r.asText()));
    Map<String, JsonNode> chosen = new LinkedHashMap<>();
    properties.fields().forEachRemaining(e -> {
      // every property below the depth limit, as strict structured outputs have them; the required ones past it
      if (depth < MAX_DEPTH || required.contains(e.getKey())) {
        chosen.put(e.getKey(), e.getValue());
      }
    });
    chosen.forEach((name, sub) -> out.set(name, value(sub, depth + 1)));
    for (String name : required) {
      if (!out.has(name)) {
        out.put(name, words(1)); // required but not declared: any value validates
      }
    }
    int least = schema.path("minProperties").asInt(0);
    JsonNode extra = schema.get("additionalProperties");
    boolean extrasAllowed = extra == null || !(extra.isBoolean() && !extra.asBoolean());
    for (int i = 0; out.size() < least && extrasAllowed; i++) {
      out.set("extra" + i, extra != null && extra.isObject() ? value(extra, depth + 1) : NODES.textNode(words(1)));
    }
    return out;
  }

  private JsonNode array(JsonNode schema, int depth) {
    ArrayNode out = NODES.arrayNode();
    JsonNode prefix = schema.path("prefixItems");
    prefix.forEach(p -> out.add(value(p, depth + 1)));
    int min = Math.max(schema.path("minItems").asInt(0), out.size());
    int max = schema.has("maxItems") ? schema.get("maxItems").asInt() : Math.max(min, 3);
    int n = depth >= MAX_DEPTH ? min : min + random.nextInt(Math.max(1, Math.min(max, min + 3) - min + 1));
    JsonNode items = schema.get("items");
    boolean unique = schema.path("uniqueItems").asBoolean(false);
    Set<JsonNode> seen = new LinkedHashSet<>();
    out.forEach(seen::add);
    for (int tries = 0; out.size() < Math.max(n, min) && tries < 4 * (n + 1); tries++) {
      JsonNode item = items != null && items.isObject() ? value(items, depth + 1) : NODES.textNode(words(1));
      if (!unique || seen.add(item)) {
        out.add(item);
      }
    }
    return out;
  }

  private long integer(JsonNode schema) {
    long low = schema.has("minimum") ? (long) Math.ceil(schema.get("minimum").asDouble()) : 0;
    if (schema.path("exclusiveMinimum").isNumber()) {
      low = Math.max(low, (long) Math.floor(schema.get("exclusiveMinimum").asDouble()) + 1);
    }
    long high = schema.has("maximum") ? (long) Math.floor(schema.get("maximum").asDouble()) : low + 100;
    if (schema.path("exclusiveMaximum").isNumber()) {
      high = Math.min(high, (long) Math.ceil(schema.get("exclusiveMaximum").asDouble()) - 1);
    }
    high = Math.max(low, Math.min(high, low + 1_000_000)); // a value a model would write, not one near 2^63
    long value = low + random.nextLong(high - low + 1);
    long step = schema.path("multipleOf").asLong(0);
    if (step > 0) {
      long up = Math.floorDiv(value + step - 1, step) * step;
      value = up <= high ? up : Math.floorDiv(value, step) * step;
    }
    return value;
  }

  private double number(JsonNode schema) {
    double low = schema.path("minimum").asDouble(schema.path("exclusiveMinimum").asDouble(0));
    double high = schema.path("maximum").asDouble(schema.path("exclusiveMaximum").asDouble(low + 100));
    high = Math.max(low, high);
    // strictly inside the range, so an exclusive bound holds too; two decimals, as a model writes, where they fit
    double value = low + (high - low) * (0.25 + 0.5 * random.nextDouble());
    double rounded = Math.round(value * 100) / 100.0;
    return rounded > low && rounded < high ? rounded : value;
  }

  private String string(JsonNode schema) {
    String s = switch (schema.path("format").asText("")) {
      case "date-time" -> "2026-11-" + (10 + random.nextInt(18)) + "T" + (10 + random.nextInt(13)) + ":30:00Z";
      case "date" -> "2026-11-" + (10 + random.nextInt(18));
      case "time" -> (10 + random.nextInt(13)) + ":30:00Z";
      case "email" -> words(1) + "@example.com";
      case "uri", "url" -> "https://example.com/" + words(1);
      case "uuid" -> new java.util.UUID(random.nextLong(), random.nextLong()).toString();
      case "hostname" -> words(1) + ".example.com";
      case "ipv4" -> "192.0.2." + random.nextInt(1, 255);
      case "ipv6" -> "2001:db8::" + Integer.toHexString(random.nextInt(1, 0xffff));
      default -> words(1 + random.nextInt(4));
    };
    int min = schema.path("minLength").asInt(0);
    int max = schema.has("maxLength") ? schema.get("maxLength").asInt() : Integer.MAX_VALUE;
    StringBuilder sb = new StringBuilder(s);
    while (sb.codePointCount(0, sb.length()) < min) {
      sb.append(' ').append(words(1));
    }
    String out = sb.toString();
    return out.codePointCount(0, out.length()) > max ? out.substring(0, out.offsetByCodePoints(0, max)) : out;
  }

  private String words(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(WORDS[random.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }
}
