package io.llmgw.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.sim.engine.SimConfig;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The simulator's HTTP contract, over real sockets on 127.0.0.81-82. */
class SimServerTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODEL = SimConfig.DEFAULT_MODEL;
  static SimPods pods;
  static SimPods tiny;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    pods = SimPods.start(SimConfig.builder().adapters(List.of("sql-lora", "chat-lora")).loras(2, 4).build(), 1,
        "127.0.0.81", 0);
    // one running slot, one waiting place, slow steps: easy to fill
    tiny = SimPods.start(SimConfig.builder().adapters(List.of("a")).capacity(1, 1, 4096).decode(50, 0.3).seed(7)
        .proposedMetrics(true).build(), 1, "127.0.0.82", 0);
  }

  @AfterAll
  static void stop() throws Exception {
    pods.close();
    tiny.close();
  }

  static String base(SimPods p) {
    return "http://" + p.pods().getFirst().address();
  }

  static HttpResponse<String> post(SimPods p, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base(p) + path)).timeout(Duration.ofSeconds(20))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json");
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(SimPods p, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(base(p) + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static String chat(String model, int maxTokens, boolean stream) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
        + ",\"stream_options\":{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
  }

  @Test
  void modelsListTheBaseModelAndAdaptersWithTheirParent() throws Exception {
    JsonNode data = JSON.readTree(get(pods, "/v1/models").body()).get("data");
    assertThat(data).hasSize(3);
    assertThat(data.get(0).get("id").asText()).isEqualTo(MODEL);
    assertThat(data.get(0).get("parent").isNull()).isTrue();
    assertThat(data.get(1).get("id").asText()).isEqualTo("sql-lora");
    assertThat(data.get(1).get("parent").asText()).isEqualTo(MODEL);
    assertThat(get(pods, "/health").statusCode()).isEqualTo(200);
  }

  /** Issue 16: embeddings in vLLM's shape, one unit vector per input, the same vector for the same input. */
  @Test
  void embeddingsAnswerOneUnitVectorPerInput() throws Exception {
    HttpResponse<String> r = post(pods, "/v1/embeddings",
        "{\"model\":\"" + MODEL + "\",\"input\":[\"first text\",\"second text\"]}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("object").asText()).isEqualTo("list");
    assertThat(body.get("data")).hasSize(2);
    JsonNode v = body.get("data").get(0).get("embedding");
    double norm = 0;
    for (JsonNode x : v) {
      norm += x.asDouble() * x.asDouble();
    }
    assertThat(norm).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-3));
    assertThat(body.get("usage").get("prompt_tokens").asInt()).isPositive();
    JsonNode again = JSON.readTree(post(pods, "/v1/embeddings",
        "{\"model\":\"" + MODEL + "\",\"input\":\"first text\"}").body());
    assertThat(again.get("data").get(0).get("embedding")).isEqualTo(v);
    for (String garbage : new String[] {"", ",\"input\":{\"a\":1}", ",\"input\":[true]", ",\"input\":[]"}) {
      HttpResponse<String> bad = post(pods, "/v1/embeddings", "{\"model\":\"" + MODEL + "\"" + garbage + "}");
      assertThat(bad.statusCode()).as(garbage).isEqualTo(400);
      assertThat(bad.body()).contains("'input'");
    }
  }

  /** Issue 16: the Responses API in vLLM's shape (streamed: issue 30, below). */
  @Test
  void responsesAnswerOneAssistantMessageWithUsage() throws Exception {
    HttpResponse<String> r = post(pods, "/v1/responses",
        "{\"model\":\"sql-lora\",\"input\":\"hello\",\"max_output_tokens\":5}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("object").asText()).isEqualTo("response");
    // the simulator generates up to the limit it is given: cut there, the response is incomplete, as vLLM says
    assertThat(body.get("status").asText()).isEqualTo("incomplete");
    assertThat(body.get("incomplete_details").get("reason").asText()).isEqualTo("max_output_tokens");
    JsonNode content = body.get("output").get(0).get("content").get(0);
    assertThat(content.get("type").asText()).isEqualTo("output_text");
    assertThat(content.get("text").asText().split(" ")).hasSize(5);
    assertThat(body.get("usage").get("output_tokens").asInt()).isEqualTo(5);
    HttpResponse<String> noInput = post(pods, "/v1/responses", "{\"model\":\"sql-lora\",\"input\":5}");
    assertThat(noInput.statusCode()).isEqualTo(400);
    assertThat(noInput.body()).contains("'input' is required: a string or an array of messages");
  }

  @Test
  void wholeChatCompletionHasOpenAiShapeAndExactLength() throws Exception {
    HttpResponse<String> r = post(pods, "/v1/chat/completions", chat("sql-lora", 7, false));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("object").asText()).isEqualTo("chat.completion");
    assertThat(body.get("model").asText()).isEqualTo("sql-lora");
    JsonNode choice = body.get("choices").get(0);
    assertThat(choice.get("message").get("role").asText()).isEqualTo("assistant");
    assertThat(choice.get("message").get("content").asText().split(" ")).hasSize(7);
    assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
    assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(7);
    assertThat(body.get("usage").get("prompt_tokens").asInt()).isPositive();
  }

  @Test
  void streamedCompletionSendsOneChunkPerTokenThenUsageThenDone() throws Exception {
    HttpResponse<String> r = post(pods, "/v1/completions", "{\"model\":\"" + MODEL
        + "\",\"prompt\":\"Say hi\",\"max_tokens\":5,\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
    List<String> events = new ArrayList<>();
    for (String block : r.body().split("\n\n")) {
      assertThat(block).startsWith("data: ");
      events.add(block.substring(6));
    }
    assertThat(events.getLast()).isEqualTo("[DONE]");
    JsonNode usage = JSON.readTree(events.get(events.size() - 2));
    assertThat(usage.get("choices")).isEmpty();
    assertThat(usage.get("usage").get("completion_tokens").asInt()).isEqualTo(5);
    List<JsonNode> tokens = new ArrayList<>();
    for (String e : events.subList(0, events.size() - 2)) {
      tokens.add(JSON.readTree(e));
    }
    assertThat(tokens).hasSize(6); // 5 tokens + the finish chunk
    assertThat(tokens.getFirst().get("object").asText()).isEqualTo("text_completion");
    assertThat(tokens.getLast().get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
  }

  /**
   * vLLM refuses a non-zero {@code priority} unless it runs {@code --scheduling-policy priority} (its engine: "Got
   * priority N but Priority scheduling is not enabled."), as a 400 in its error shape; a priority pod takes it.
   */
  @Test
  void aPriorityIsRefusedUnlessThePodSchedulesByPriority() throws Exception {
    String body = "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
        + "\"max_tokens\":1,\"priority\":-5}";
    HttpResponse<String> fcfs = post(pods, "/v1/chat/completions", body);
    assertThat(fcfs.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(fcfs.body()).get("error");
    assertThat(error.get("message").asText()).isEqualTo("Got priority -5 but Priority scheduling is not enabled.");
    assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
    try (SimPods priority = SimPods.start(SimConfig.builder().priorityScheduling(true).build(), 1, "127.0.0.84", 0)) {
      assertThat(post(priority, "/v1/chat/completions", body).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void badRequestsGetVllmStatusCodes() throws Exception {
    assertThat(post(pods, "/v1/chat/completions", "{not json").statusCode()).isEqualTo(400);
    assertThat(post(pods, "/v1/chat/completions", "{\"messages\":[]}").statusCode()).isEqualTo(400);
    assertThat(post(pods, "/v1/chat/completions", "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"x\"}],\"max_tokens\":-3}").statusCode()).isEqualTo(400);
    for (String priority : new String[] {"\"high\"", "1.5", "99999999999", "[]"}) {
      HttpResponse<String> r = post(pods, "/v1/chat/completions", "{\"model\":\"" + MODEL + "\",\"messages\":[{"
          + "\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":1,\"priority\":" + priority + "}");
      assertThat(r.statusCode()).as(priority).isEqualTo(400);
      assertThat(r.body()).contains("'priority' must be an integer");
    }
    assertThat(post(pods, "/v1/chat/completions", "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"x\"}],\"max_tokens\":1,\"priority\":0}").statusCode()).isEqualTo(200);
    HttpResponse<String> unknown = post(pods, "/v1/chat/completions", chat("no-such-lora", 1, false));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(unknown.body()).get("error").get("message").asText()).contains("no-such-lora");
    assertThat(get(pods, "/v1/chat/completions").statusCode()).isEqualTo(405);
    assertThat(get(pods, "/nope").statusCode()).isEqualTo(404);
  }

  @Test
  void returnErrorHeaderInjectsThatStatus() throws Exception {
    assertThat(post(pods, "/v1/chat/completions", chat(MODEL, 1, false), "X-Return-Error", "503").statusCode())
        .isEqualTo(503);
    assertThat(post(pods, "/v1/chat/completions", chat(MODEL, 1, false), "X-Return-Error", "teapot").statusCode())
        .isEqualTo(400);
  }

  @Test
  void failureRateInjects500sRepeatablyUnderASeed() throws Exception {
    SimConfig flaky = SimConfig.builder().capacity(8, 8, 4096).prefill(1, 0.01).decode(1, 0.01).failureRate(0.5)
        .seed(99).build();
    List<Integer> first = new ArrayList<>();
    List<Integer> second = new ArrayList<>();
    for (List<Integer> codes : List.of(first, second)) {
      try (SimPods p = SimPods.start(flaky, 1, "127.0.0.83", 0)) {
        for (int i = 0; i < 40; i++) {
          codes.add(post(p, "/v1/chat/completions", chat(MODEL, 1, false)).statusCode());
        }
      }
    }
    assertThat(first).containsOnly(200, 500);
    assertThat(first.stream().filter(c -> c == 500).count()).isBetween(10L, 30L);
    assertThat(second).as("the same seed fails the same requests").isEqualTo(first);
  }

  @Test
  void fullWaitingQueueAnswers429AndMetricsMoveWithLoad() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      held.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(base(tiny) + "/v1/chat/completions"))
          .POST(HttpRequest.BodyPublishers.ofString(chat("a", 20, false))).build(),
          HttpResponse.BodyHandlers.ofString()));
      int expectRunning = 1;
      int expectWaiting = i;
      await().atMost(Duration.ofSeconds(5)).until(() -> gauge("vllm:num_requests_running") == expectRunning
          && gauge("vllm:num_requests_waiting") == expectWaiting);
    }
    assertThat(post(tiny, "/v1/chat/completions", chat("a", 1, false)).statusCode()).isEqualTo(429);
    String metrics = get(tiny, "/metrics").body();
    assertThat(metrics).contains("vllm:lora_requests_info{max_lora=\"1\",running_lora_adapters=\"a\","
        + "waiting_lora_adapters=\"a\"}");
    assertThat(gauge("vllm:kv_cache_usage_perc")).isPositive();
    for (CompletableFuture<HttpResponse<String>> f : held) {
      assertThat(f.get().statusCode()).isEqualTo(200);
    }
    assertThat(gauge("vllm:num_requests_running")).isZero();
    String after = get(tiny, "/metrics").body();
    assertThat(gauge("vllm:time_to_first_token_seconds_count")).isGreaterThanOrEqualTo(2);
    assertThat(after).contains("vllm:inter_token_latency_seconds_bucket")
        .contains("vllm:e2e_request_latency_seconds_sum")
        .contains("vllm:request_queue_time_seconds_count").contains("vllm:generation_tokens_total")
        .contains("vllm:cache_config_info{block_size=\"16\",engine=\"0\",num_gpu_blocks=\"4096\"} 1.0")
        .contains("vllm:num_requests_running{engine=\"0\",model_name=\"" + MODEL + "\"} 0.0")
        .contains("vllm:lora_adapter_loaded{adapter_name=\"a\",level=\"gpu\"} 1.0") // --proposed-metrics
        .contains("vllm:lora_requests_info{max_lora=\"1\",running_lora_adapters=\"a\",waiting_lora_adapters=\"a\"}")
        .as("vLLM keeps every label combination it set; the newest is current")
        .contains("vllm:lora_requests_info{max_lora=\"1\",running_lora_adapters=\"\",waiting_lora_adapters=\"\"}");
  }

  /**
   * Issue 30: the OpenAI SDKs ask for {@code encoding_format: base64} by default; vLLM answers the same vector as
   * little-endian float32 bytes in base64, and refuses a format it does not know in its error shape.
   */
  @Test
  void embeddingsComeAsBase64FloatsWhenAskedAndAreTheSameVector() throws Exception {
    String body = "{\"model\":\"" + MODEL + "\",\"input\":[\"one\",\"two\"]";
    JsonNode floats = JSON.readTree(post(pods, "/v1/embeddings", body + "}").body()).get("data");
    JsonNode packed = JSON.readTree(post(pods, "/v1/embeddings", body + ",\"encoding_format\":\"base64\"}").body())
        .get("data");
    assertThat(packed).hasSize(2);
    for (int i = 0; i < 2; i++) {
      java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(java.util.Base64.getDecoder()
          .decode(packed.get(i).get("embedding").asText())).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      assertThat(bytes.remaining()).isEqualTo(4 * floats.get(i).get("embedding").size());
      for (JsonNode f : floats.get(i).get("embedding")) {
        assertThat(bytes.getFloat()).isEqualTo(f.floatValue());
      }
    }
    assertThat(JSON.readTree(post(pods, "/v1/embeddings", body + ",\"encoding_format\":\"float\"}").body())
        .get("data")).isEqualTo(floats);
    HttpResponse<String> bad = post(pods, "/v1/embeddings", body + ",\"encoding_format\":\"int8\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(bad.body()).get("error");
    assertThat(error.get("message").asText()).contains("encoding_format");
    assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
    assertThat(error.get("code").asInt()).isEqualTo(400);
    assertThat(error.has("param")).isTrue();
    assertThat(post(pods, "/v1/embeddings", body + ",\"encoding_format\":5}").statusCode()).isEqualTo(400);
    assertThat(post(pods, "/v1/embeddings", body + ",\"encoding_format\":null}").statusCode()).as("null: the default")
        .isEqualTo(200);
  }

  /**
   * Issue 30: a streamed Responses API call comes as vLLM streams it: {@code event:} and {@code data:} lines, its event
   * types in vLLM's order, numbered from 0, the deltas adding up to the final text, usage in the last event, and no
   * {@code [DONE]}.
   */
  @Test
  void aStreamedResponsesCallFollowsVllmsEventsInOrder() throws Exception {
    HttpResponse<String> r = post(pods, "/v1/responses", "{\"model\":\"sql-lora\",\"input\":\"hello\","
        + "\"max_output_tokens\":3,\"stream\":true}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
    List<String> types = new ArrayList<>();
    List<JsonNode> events = new ArrayList<>();
    for (String block : r.body().split("\n\n")) {
      String[] lines = block.split("\n");
      assertThat(lines).hasSize(2);
      assertThat(lines[0]).startsWith("event: ");
      assertThat(lines[1]).startsWith("data: ");
      JsonNode data = JSON.readTree(lines[1].substring(6));
      assertThat(data.get("type").asText()).isEqualTo(lines[0].substring(7));
      assertThat(data.get("sequence_number").asInt()).isEqualTo(events.size());
      types.add(data.get("type").asText());
      events.add(data);
    }
    assertThat(types).containsExactly("response.created", "response.in_progress", "response.output_item.added",
        "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
        "response.output_text.delta", "response.output_text.done", "response.content_part.done",
        "response.output_item.done", "response.completed");
    assertThat(events.getFirst().get("response").get("status").asText()).isEqualTo("in_progress");
    String deltas = events.stream().filter(e -> e.get("type").asText().endsWith(".delta"))
        .map(e -> e.get("delta").asText()).reduce("", String::concat);
    assertThat(events.get(7).get("text").asText()).isEqualTo(deltas);
    JsonNode done = events.getLast().get("response");
    assertThat(done.get("status").asText()).as("cut at max_output_tokens").isEqualTo("incomplete");
    assertThat(done.get("model").asText()).isEqualTo("sql-lora");
    assertThat(done.get("output").get(0).get("content").get(0).get("text").asText()).isEqualTo(deltas);
    assertThat(done.get("usage").get("output_tokens").asInt()).isEqualTo(3);
    assertThat(r.body()).doesNotContain("[DONE]");
  }

  @Test
  void clientThatDisconnectsMidStreamFreesItsSlot() throws Exception {
    HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create(base(tiny) + "/v1/chat/completions"))
        .POST(HttpRequest.BodyPublishers.ofString(chat("a", 4000, true))).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      assertThat(lines.readLine()).startsWith("data: ");
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> gauge("vllm:num_requests_running") == 0);
  }

  @Test
  void runtimeLoraApiAnswersAsVllmDoes() throws Exception {
    assertThat(post(pods, "/v1/load_lora_adapter", "{\"lora_name\":\"new-lora\",\"lora_path\":\"/a/new\"}")
        .statusCode()).isEqualTo(200);
    assertThat(post(pods, "/v1/load_lora_adapter", "{\"lora_name\":\"new-lora\",\"lora_path\":\"/a/new\"}")
        .statusCode()).as("duplicate").isEqualTo(400);
    assertThat(post(pods, "/v1/load_lora_adapter", "{\"lora_name\":\"x\"}").statusCode()).isEqualTo(400);
    assertThat(post(pods, "/v1/load_lora_adapter", "garbage").statusCode()).isEqualTo(400);
    assertThat(post(pods, "/v1/load_lora_adapter", "{\"lora_name\":\"m\",\"lora_path\":\"/missing/m\"}")
        .statusCode()).isEqualTo(404);
    HttpResponse<String> broken = post(pods, "/v1/load_lora_adapter",
        "{\"lora_name\":\"f\",\"lora_path\":\"/fail/f\"}");
    assertThat(broken.statusCode()).isEqualTo(500);
    assertThat(broken.body()).contains("f");
    assertThat(get(pods, "/v1/models").body()).contains("\"new-lora\"").doesNotContain("\"f\"");
    assertThat(get(pods, "/metrics").body()).as("only proposed upstream: behind --proposed-metrics")
        .doesNotContain("vllm:lora_adapter_loaded");
    assertThat(post(pods, "/v1/chat/completions", chat("new-lora", 2, false)).statusCode()).isEqualTo(200);
    assertThat(post(pods, "/v1/unload_lora_adapter", "{\"lora_name\":\"new-lora\"}").statusCode()).isEqualTo(200);
    assertThat(post(pods, "/v1/unload_lora_adapter", "{\"lora_name\":\"new-lora\"}").statusCode()).isEqualTo(404);
    assertThat(post(pods, "/v1/chat/completions", chat("new-lora", 2, false)).statusCode()).isEqualTo(404);
  }

  /**
   * As vLLM: {@code /metrics} is every series (its instrumentator's route), {@code /metrics/?name[]=…} only the series
   * named (prometheus_client's app under vLLM's mount); a name nothing exports, or a mangled parameter, is no error.
   */
  @Test
  void metricsUnderTheMountAreFilteredByNameAsPrometheusClientDoes() throws Exception {
    String filtered = get(tiny, "/metrics/?name%5B%5D=vllm%3Anum_requests_running&name%5B%5D=vllm%3Akv_cache_usage_perc"
        + "&name%5B%5D=vllm%3Ano_such_metric").body();
    assertThat(filtered).contains("vllm:num_requests_running{engine=\"0\"").contains("vllm:kv_cache_usage_perc{")
        .doesNotContain("vllm:num_requests_waiting").doesNotContain("_bucket").doesNotContain("no_such_metric");
    assertThat(filtered.length()).isLessThan(get(tiny, "/metrics").body().length() / 5);
    assertThat(get(tiny, "/metrics/?name%5B%5D=vllm%3Ageneration_tokens_total").body())
        .as("a counter asked by its sample's name").contains("vllm:generation_tokens_total");
    assertThat(get(tiny, "/metrics/").body()).as("no name[]: everything").contains("vllm:num_requests_waiting")
        .contains("_bucket");
    String[] hostPort = tiny.pods().getFirst().address().split(":");
    try (java.net.Socket raw = new java.net.Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
      raw.setSoTimeout(5_000);
      raw.getOutputStream().write("GET /metrics/?name%5B%5D=%ZZ HTTP/1.1\r\nHost: sim\r\n\r\n"
          .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      String answer = new String(raw.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.ISO_8859_1);
      assertThat(answer).as("a query that does not decode names nothing, as parse_qs").isEqualTo("HTTP/1.1 200");
    }
  }

  static double gauge(String name) throws Exception {
    for (String line : get(tiny, "/metrics").body().split("\n")) {
      if (line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError(name + " is not exported");
  }
}
