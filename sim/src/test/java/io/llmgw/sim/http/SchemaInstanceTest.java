package io.llmgw.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 5: what the simulator answers for a schema validates against it, checked by a JSON Schema validator
 * nobody here wrote (networknt), over schemas in the shapes SDKs send: Zod's (LangChain, the Vercel AI SDK), OpenAI's
 * strict ones, references, unions, recursion.
 */
class SchemaInstanceTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int INSTANCES = 300;

  static final List<String> SCHEMAS = List.of(
      // Zod through zod-to-json-schema, as LangChain's withStructuredOutput sends it
      """
          {"type":"object","properties":{"setup":{"type":"string","description":"the joke's setup"},
           "punchline":{"type":"string"},"rating":{"type":"number","minimum":1,"maximum":10},
           "tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":4}},
           "required":["setup","punchline","rating","tags"],"additionalProperties":false,
           "$schema":"http://json-schema.org/draft-07/schema#"}""",
      // OpenAI strict mode: every property required, nullables as type arrays, enums, nested objects
      """
          {"type":"object","additionalProperties":false,"required":["city","unit","days","when","owner"],
           "properties":{"city":{"type":"string","minLength":3,"maxLength":12},"unit":{"type":"string",
           "enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"exclusiveMaximum":8,"multipleOf":1},
           "when":{"type":["string","null"],"format":"date-time"},"owner":{"type":"object","additionalProperties":false,
           "required":["email","id"],"properties":{"email":{"type":"string","format":"email"},
           "id":{"type":"string","format":"uuid"}}}}}""",
      // references and a recursive tree
      """
          {"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array",
           "items":{"$ref":"#/$defs/node"}}},"required":["name","children"],"additionalProperties":false}},
           "$ref":"#/$defs/node"}""",
      // a discriminated union (Zod's z.discriminatedUnion) and a plain anyOf
      """
          {"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},
           "radius":{"type":"number","exclusiveMinimum":0}},"required":["kind","radius"],"additionalProperties":false},
           {"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"integer","minimum":1}},
           "required":["kind","side"],"additionalProperties":false}]},"note":{"anyOf":[{"type":"string"},
           {"type":"null"}]}},"required":["shape","note"]}""",
      // allOf, unique enum items, definitions (draft-07's name), booleans and numbers without bounds
      """
          {"definitions":{"base":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}},
           "allOf":[{"$ref":"#/definitions/base"},{"type":"object","properties":{"flags":{"type":"array",
           "items":{"enum":["a","b","c"]},"uniqueItems":true,"minItems":2},"ok":{"type":"boolean"},
           "score":{"type":"number"}},"required":["flags","ok","score"]}]}""",
      // no type at all, and an empty schema: anything validates
      """
          {"properties":{"anything":{}},"required":["anything"]}""");

  static JsonSchema validator(JsonNode schema) {
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(schema);
  }

  @Test
  void everyInstanceValidatesAgainstItsSchema() throws Exception {
    int checked = 0;
    for (String text : SCHEMAS) {
      JsonNode schema = JSON.readTree(text);
      JsonSchema validator = validator(schema);
      for (int seed = 0; seed < INSTANCES; seed++) {
        JsonNode instance = SchemaInstance.of(schema, new SplittableRandom(seed));
        assertThat(validator.validate(instance)).as("%s\nfor %s", instance, text).isEmpty();
        checked++;
      }
    }
    System.out.printf("schema instances validated: %d of %d schemas x %d seeds%n", checked, SCHEMAS.size(),
        INSTANCES);
    assertThat(checked).isEqualTo(SCHEMAS.size() * INSTANCES);
  }

  @Test
  void instancesVaryWithTheSeedAndRepeatUnderTheSame() throws Exception {
    JsonNode schema = JSON.readTree(SCHEMAS.get(1));
    assertThat(SchemaInstance.of(schema, new SplittableRandom(3))).isEqualTo(SchemaInstance.of(schema,
        new SplittableRandom(3)));
    assertThat(java.util.stream.IntStream.range(0, 20).mapToObj(s -> SchemaInstance.of(schema,
        new SplittableRandom(s))).distinct().count()).isGreaterThan(10);
  }

  @Test
  void jsonObjectModeAnswersAnObject() {
    assertThat(SchemaInstance.of(null, new SplittableRandom(1)).isObject()).isTrue();
  }

  @Test
  void aSchemaWithNoInstanceOrAReferenceItCannotFollowIsRefusedNotRecursedIntoForever() throws Exception {
    assertThatThrownBy(() -> SchemaInstance.of(JSON.readTree(
        "{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#\"}},\"required\":[\"next\"]}"),
        new SplittableRandom(1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requires itself");
    assertThatThrownBy(() -> SchemaInstance.of(JSON.readTree("{\"$ref\":\"https://example.com/s.json\"}"),
        new SplittableRandom(1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("local");
    assertThatThrownBy(() -> SchemaInstance.of(JSON.readTree("{\"$ref\":\"#/$defs/missing\"}"),
        new SplittableRandom(1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nothing");
    assertThatThrownBy(() -> SchemaInstance.of(JSON.readTree("[1,2]"), new SplittableRandom(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
