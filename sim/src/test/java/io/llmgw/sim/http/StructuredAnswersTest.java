package io.llmgw.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.sim.engine.SimConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 5: the simulator answers tools and response formats as vLLM does (its OpenAI server's rules: auto
 * needs --enable-auto-tool-choice, forced calls finish with stop and empty content, a call the model chose with
 * tool_calls and null content), with arguments and content that validate against the request's schemas; a Responses
 * call cut by its token limit is incomplete.
 */
class StructuredAnswersTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final String MODEL = SimConfig.DEFAULT_MODEL;
  static final String WEATHER = """
      {"type":"function","function":{"name":"get_weather","description":"the weather in a city",
       "parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string",
       "enum":["celsius","fahrenheit"]}},"required":["city","unit"],"additionalProperties":false}}}""";
  static final String TIME = """
      {"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{
       "zone":{"type":"string"}},"required":["zone"]}}}""";
  static SimPods auto;
  static SimPods plain;

  @BeforeAll
  static void start() throws Exception {
    auto = SimPods.start(SimConfig.builder().autoToolChoice(true).build(), 1, "127.0.0.88", 0);
    plain = SimPods.start(SimConfig.defaults(), 1, "127.0.0.89", 0);
  }

  @AfterAll
  static void stop() throws Exception {
    auto.close();
    plain.close();
  }

  static HttpResponse<String> post(SimPods p, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://" + p.pods().getFirst().address() + path))
        .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(body))
        .header("content-type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode ok(SimPods p, String body) throws Exception {
    HttpResponse<String> r = post(p, "/v1/chat/completions", body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  static String chat(String extra, String... messages) {
    return "{\"model\":\"" + MODEL + "\",\"messages\":[" + String.join(",", messages) + "]" + extra + "}";
  }

  static String user(String text) {
    return "{\"role\":\"user\",\"content\":\"" + text + "\"}";
  }

  static JsonNode parameters(String tool) throws Exception {
    return JSON.readTree(tool).get("function").get("parameters");
  }

  @Test
  void aForcedCallNamesItsToolWithArgumentsThatValidateAndFinishesWithStop() throws Exception {
    JsonNode named = ok(plain, chat(",\"tools\":[" + WEATHER + "," + TIME + "],\"tool_choice\":{\"type\":\"function\","
        + "\"function\":{\"name\":\"get_time\"}}", user("what time is it in Lima?")));
    JsonNode choice = named.get("choices").get(0);
    JsonNode call = choice.get("message").get("tool_calls").get(0);
    assertThat(call.get("type").asText()).isEqualTo("function");
    assertThat(call.get("id").asText()).startsWith("chatcmpl-tool-");
    assertThat(call.get("function").get("name").asText()).isEqualTo("get_time");
    JsonNode args = JSON.readTree(call.get("function").get("arguments").asText());
    assertThat(SchemaInstanceTest.validator(parameters(TIME)).validate(args)).isEmpty();
    assertThat(choice.get("message").get("content").asText()).isEmpty();
    assertThat(choice.get("finish_reason").asText()).as("vLLM's finish reason for a forced call").isEqualTo("stop");
    assertThat(named.get("usage").get("completion_tokens").asInt())
        .as("the arguments' tokens, four characters each").isEqualTo((call.get("function").get("arguments")
            .asText().length() + 3) / 4);

    JsonNode required = ok(plain, chat(",\"tools\":[" + WEATHER + "],\"tool_choice\":\"required\"", user("hi")));
    JsonNode weather = required.get("choices").get(0).get("message").get("tool_calls").get(0).get("function");
    assertThat(weather.get("name").asText()).isEqualTo("get_weather");
    assertThat(SchemaInstanceTest.validator(parameters(WEATHER)).validate(JSON.readTree(weather.get("arguments")
        .asText()))).isEmpty();
  }

  @Test
  void autoNeedsTheFlagAndThenCallsUntilATollResultComesBack() throws Exception {
    String tools = ",\"tools\":[" + WEATHER + "," + TIME + "]";
    HttpResponse<String> refused = post(plain, "/v1/chat/completions", chat(tools, user("weather in Oslo?")));
    assertThat(refused.statusCode()).as("tools without a choice mean auto, which vLLM refuses without the flag")
        .isEqualTo(400);
    assertThat(refused.body()).contains("--enable-auto-tool-choice");

    JsonNode first = ok(auto, chat(tools, user("call get_time for Oslo")));
    JsonNode choice = first.get("choices").get(0);
    assertThat(choice.get("finish_reason").asText()).isEqualTo("tool_calls");
    assertThat(choice.get("message").get("content").isNull()).isTrue();
    JsonNode call = choice.get("message").get("tool_calls").get(0);
    assertThat(call.get("function").get("name").asText()).as("the tool the message names").isEqualTo("get_time");

    JsonNode second = ok(auto, chat(tools, user("call get_time for Oslo"), "{\"role\":\"assistant\",\"content\":null,"
        + "\"tool_calls\":[" + call + "]}",
        "{\"role\":\"tool\",\"tool_call_id\":\"" + call.get("id").asText()
            + "\",\"content\":\"14:05\"}"));
    JsonNode answer = second.get("choices").get(0);
    assertThat(answer.get("message").has("tool_calls")).isFalse();
    assertThat(answer.get("message").get("content").asText()).isNotBlank();
    assertThat(answer.get("finish_reason").asText()).isEqualTo("stop");
    assertThat(second.get("usage").get("prompt_tokens").asInt()).as("the call and its result are in the prompt")
        .isGreaterThan(first.get("usage").get("prompt_tokens").asInt());

    JsonNode none = ok(plain, chat(tools + ",\"tool_choice\":\"none\"", user("hi")));
    assertThat(none.get("choices").get(0).get("message").has("tool_calls")).isFalse();
  }

  @Test
  void aStreamedCallCarriesItsIdAndNameFirstThenItsArgumentsInPieces() throws Exception {
    HttpResponse<String> r = post(auto, "/v1/chat/completions", chat(",\"stream\":true,\"tools\":[" + WEATHER + "]",
        user("weather in Oslo?")));
    List<JsonNode> chunks = new ArrayList<>();
    for (String line : r.body().split("\n")) {
      if (line.startsWith("data: {")) {
        chunks.add(JSON.readTree(line.substring(6)));
      }
    }
    assertThat(r.body()).endsWith("data: [DONE]\n\n");
    JsonNode first = chunks.getFirst().get("choices").get(0).get("delta");
    assertThat(first.get("role").asText()).isEqualTo("assistant");
    JsonNode head = first.get("tool_calls").get(0);
    assertThat(head.get("index").asInt()).isZero();
    assertThat(head.get("id").asText()).startsWith("chatcmpl-tool-");
    assertThat(head.get("function").get("name").asText()).isEqualTo("get_weather");
    StringBuilder arguments = new StringBuilder();
    for (JsonNode c : chunks) {
      JsonNode calls = c.get("choices").get(0).get("delta").get("tool_calls");
      if (calls != null) {
        assertThat(calls.get(0).get("index").asInt()).isZero();
        arguments.append(calls.get(0).get("function").get("arguments").asText());
      }
    }
    assertThat(chunks.size()).as("one chunk per token, then the finish").isGreaterThan(3);
    assertThat(SchemaInstanceTest.validator(parameters(WEATHER)).validate(JSON.readTree(arguments.toString())))
        .isEmpty();
    assertThat(chunks.getLast().get("choices").get(0).get("finish_reason").asText()).isEqualTo("tool_calls");
  }

  @Test
  void aResponseFormatGivesContentThatValidatesWholeOrStreamedAndATokenLimitCutsIt() throws Exception {
    String schema = SchemaInstanceTest.SCHEMAS.get(1);
    String format = ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"w\",\"strict\":true,"
        + "\"schema\":" + schema + "}}";
    JsonNode whole = ok(plain, chat(format, user("forecast")));
    JsonNode content = JSON.readTree(whole.get("choices").get(0).get("message").get("content").asText());
    assertThat(SchemaInstanceTest.validator(JSON.readTree(schema)).validate(content)).isEmpty();
    assertThat(whole.get("choices").get(0).get("finish_reason").asText()).isEqualTo("stop");

    HttpResponse<String> streamed = post(plain, "/v1/chat/completions", chat(format + ",\"stream\":true",
        user("forecast")));
    StringBuilder text = new StringBuilder();
    for (String line : streamed.body().split("\n")) {
      if (line.startsWith("data: {")) {
        JsonNode delta = JSON.readTree(line.substring(6)).get("choices").get(0).get("delta");
        if (delta.hasNonNull("content")) {
          text.append(delta.get("content").asText());
        }
      }
    }
    assertThat(SchemaInstanceTest.validator(JSON.readTree(schema)).validate(JSON.readTree(text.toString())))
        .isEmpty();

    assertThat(ok(plain, chat(",\"response_format\":{\"type\":\"json_object\"}", user("x"))).get("choices").get(0)
        .get("message").get("content").asText()).startsWith("{");

    JsonNode cut = ok(plain, chat(format + ",\"max_tokens\":3", user("forecast")));
    assertThat(cut.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
    assertThat(cut.get("choices").get(0).get("message").get("content").asText()).hasSize(12);
  }

  @Test
  void garbageToolsAndFormatsAreRefusedAs400NamingTheProblem() throws Exception {
    String[][] cases = {
        {",\"tools\":{\"a\":1}", "'tools' must be an array"},
        {",\"tools\":[{\"type\":\"retrieval\"}],\"tool_choice\":\"required\"", "each tool must be"},
        {",\"tools\":[" + WEATHER + "],\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"nope\"}}",
            "does not match any"},
        {",\"tools\":[" + WEATHER + "],\"tool_choice\":\"sometimes\"", "Invalid value for `tool_choice`"},
        {",\"tool_choice\":\"auto\"", "`tools` must be set"},
        {",\"response_format\":{\"type\":\"xml\"}", "response_format type"},
        {",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\"}}", "json_schema.schema"},
        {",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"schema\":{\"type\":\"object\","
            + "\"properties\":{\"n\":{\"$ref\":\"#\"}},\"required\":[\"n\"]}}}", "requires itself"}};
    for (String[] c : cases) {
      HttpResponse<String> r = post(auto, "/v1/chat/completions", chat(c[0], user("x")));
      assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").get("message").asText()).as(c[0]).contains(c[1]);
    }
    JsonNode noTools = ok(auto, chat(",\"tools\":[],\"tool_choice\":\"required\"", user("x")));
    assertThat(noTools.get("choices").get(0).get("message").has("tool_calls")).as("vLLM: required over no tools")
        .isFalse();
  }

  @Test
  void aResponsesCallCutByItsLimitIsIncompleteWholeAndStreamed() throws Exception {
    JsonNode whole = JSON.readTree(post(plain, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"hi\","
        + "\"max_output_tokens\":3}").body());
    assertThat(whole.get("status").asText()).isEqualTo("incomplete");
    assertThat(whole.get("incomplete_details").get("reason").asText()).isEqualTo("max_output_tokens");
    JsonNode done = JSON.readTree(post(plain, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"hi\"}")
        .body());
    assertThat(done.get("status").asText()).isEqualTo("completed");
    assertThat(done.get("incomplete_details").isNull()).isTrue();

    String events = post(plain, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"hi\",\"stream\":true,"
        + "\"max_output_tokens\":2}").body();
    String last = events.substring(events.lastIndexOf("data: ") + 6).strip();
    JsonNode end = JSON.readTree(last);
    assertThat(end.get("type").asText()).as("vLLM names the last event so either way").isEqualTo("response.completed");
    assertThat(end.get("response").get("status").asText()).isEqualTo("incomplete");
  }

  @Test
  void theResponsesApiCallsToolsAndFollowsATextFormatAsVllmDoes() throws Exception {
    String tool = "{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":"
        + parameters(WEATHER) + "}";
    JsonNode called = JSON.readTree(post(auto, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"weather?\","
        + "\"tools\":[" + tool + "]}").body());
    JsonNode call = called.get("output").get(0);
    assertThat(call.get("type").asText()).isEqualTo("function_call");
    assertThat(call.get("name").asText()).isEqualTo("get_weather");
    assertThat(call.get("call_id").asText()).startsWith("call_");
    assertThat(SchemaInstanceTest.validator(parameters(WEATHER)).validate(JSON.readTree(call.get("arguments")
        .asText()))).isEmpty();
    assertThat(called.get("status").asText()).isEqualTo("completed");

    JsonNode answered = JSON.readTree(post(auto, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"tools\":[" + tool
        + "],\"input\":[{\"role\":\"user\",\"content\":\"weather?\"}," + call + ",{\"type\":\"function_call_output\","
        + "\"call_id\":\"" + call.get("call_id").asText() + "\",\"output\":\"sunny\"}]}").body());
    assertThat(answered.get("output").get(0).get("type").asText()).isEqualTo("message");

    List<String> types = new ArrayList<>();
    StringBuilder arguments = new StringBuilder();
    for (String line : post(auto, "/v1/responses",
        "{\"model\":\"" + MODEL + "\",\"input\":\"weather?\",\"stream\":true,"
            + "\"tools\":[" + tool + "]}")
        .body().split("\n")) {
      if (line.startsWith("data: ")) {
        JsonNode e = JSON.readTree(line.substring(6));
        types.add(e.get("type").asText());
        if (e.get("type").asText().equals("response.function_call_arguments.delta")) {
          arguments.append(e.get("delta").asText());
        }
      }
    }
    assertThat(types.subList(0, 3)).containsExactly("response.created", "response.in_progress",
        "response.output_item.added");
    assertThat(types.subList(types.size() - 3, types.size())).containsExactly("response.function_call_arguments.done",
        "response.output_item.done", "response.completed");
    assertThat(SchemaInstanceTest.validator(parameters(WEATHER)).validate(JSON.readTree(arguments.toString())))
        .isEmpty();

    String schema = SchemaInstanceTest.SCHEMAS.get(0);
    JsonNode formatted = JSON.readTree(post(plain, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"joke\","
        + "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"joke\",\"strict\":true,\"schema\":" + schema
        + "}}}")
        .body());
    JsonNode text = JSON.readTree(formatted.get("output").get(0).get("content").get(0).get("text").asText());
    assertThat(SchemaInstanceTest.validator(JSON.readTree(schema)).validate(text)).isEmpty();
    HttpResponse<String> bad = post(plain, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"x\","
        + "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"x\"}}}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("text.format json_schema needs schema");
    String[][] garbage = {
        {",\"tools\":[{\"type\":\"function\"}]", "each tool must be {\\\"type\\\": \\\"function\\\", \\\"name\\\""},
        {",\"tools\":[" + tool + "],\"tool_choice\":{\"type\":\"function\"}", "Expected field `name`"},
        {",\"tools\":[" + tool + "],\"tool_choice\":{\"type\":\"function\",\"name\":\"nope\"}", "does not match any"},
        {",\"text\":{\"format\":{\"type\":\"yaml\"}}", "text.format type"}};
    for (String[] c : garbage) {
      HttpResponse<String> r = post(auto, "/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"x\"" + c[0] + "}");
      assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").get("message").asText()).as(c[0]).contains(
          c[1].replace("\\\"", "\""));
    }
  }

  @Test
  void createdIsWhenTheResponseWasMade() throws Exception {
    long before = System.currentTimeMillis() / 1000;
    JsonNode r = ok(plain, chat("", user("x")));
    long after = System.currentTimeMillis() / 1000;
    assertThat(r.get("created").asLong()).isBetween(before, after);
  }
}
