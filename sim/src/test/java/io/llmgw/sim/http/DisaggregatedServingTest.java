package io.llmgw.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.sim.engine.SimConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * llm-d's disaggregated serving between simulated pods over real sockets: a decode pod (127.0.0.86) asked with
 * {@code x-prefiller-host-port} has the prefill pod (127.0.0.85) compute the prompt, pulls its KV cache and generates;
 * when the prefill pod is unreachable (127.0.0.87, nothing listening), answers nonsense (127.0.0.94) or dies
 * mid-transfer, it prefills the prompt itself, and the client gets its answer either way.
 */
class DisaggregatedServingTest {
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final String PROMPT = "Summarise the following report in one line. " + "word ".repeat(2_000);

  static SimConfig.Builder pod(SimConfig.Role role, double transferUsPerToken) {
    return SimConfig.builder().role(role).decode(5, 0.1).prefill(1, 0.05).kvTransferPerToken(transferUsPerToken);
  }

  static CompletableFuture<HttpResponse<String>> chat(SimPods decode, String prefiller) {
    String body = "{\"model\":\"" + SimConfig.DEFAULT_MODEL + "\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\","
        + "\"content\":\"" + PROMPT + "\"}]}";
    return HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://" + decode.pods().getFirst().address()
        + "/v1/chat/completions")).timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
        .header(PdSidecar.PREFILLER, prefiller).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static double metric(SimPods p, String name, String label) throws Exception {
    String text = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + p.pods().getFirst().address() + "/metrics"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(name + "{") && line.contains(label)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  @Test
  void theDecodePodGeneratesFromTheKvCacheThePrefillPodComputed() throws Exception {
    try (SimPods prefill = SimPods.start(pod(SimConfig.Role.PREFILL, 1).build(), 1, "127.0.0.85", 0);
        SimPods decode = SimPods.start(pod(SimConfig.Role.DECODE, 1).build(), 1, "127.0.0.86", 0)) {
      HttpResponse<String> r = chat(decode, prefill.pods().getFirst().address()).get();
      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode answer = SimServerTest.JSON.readTree(r.body());
      assertThat(answer.path("usage").path("completion_tokens").asInt()).isEqualTo(8);
      assertThat(answer.has("kv_transfer_params")).as("the handover is between the pods").isFalse();
      assertThat(metric(decode, "sim:pd_requests_total", "outcome=\"pulled\"")).isEqualTo(1);
      // the prefill pod ran the prompt for one token; the decode pod's prefix cache found none of it
      assertThat(metric(prefill, "vllm:request_success_total", "finished_reason=\"length\"")).isEqualTo(1);
      assertThat(metric(decode, "vllm:prefix_cache_hits_total", "")).isZero();
      // a request without the header, and one that asks a prefill pod to decode, are served whole
      assertThat(SimServerTest.post(decode, "/v1/completions", "{\"model\":\"" + SimConfig.DEFAULT_MODEL
          + "\",\"prompt\":\"hi\",\"max_tokens\":2}").statusCode()).isEqualTo(200);
      assertThat(chat(prefill, decode.pods().getFirst().address()).get().statusCode()).isEqualTo(200);
      assertThat(metric(prefill, "sim:pd_requests_total", "")).isZero();
    }
  }

  @Test
  void anUnreachablePrefillPodOrABadHeaderMeansPrefillingHere() throws Exception {
    try (SimPods decode = SimPods.start(pod(SimConfig.Role.DECODE, 1).build(), 1, "127.0.0.86", 0)) {
      assertThat(chat(decode, "127.0.0.87:8000").get().statusCode()).isEqualTo(200);
      assertThat(chat(decode, "no-port-here").get().statusCode()).isEqualTo(200);
      assertThat(metric(decode, "sim:pd_requests_total", "outcome=\"prefill_failed\"")).isEqualTo(1);
      assertThat(metric(decode, "sim:pd_requests_total", "outcome=\"bad_prefiller\"")).isEqualTo(1);
    }
  }

  /** A prefill pod's answer without a usable handover, and a pull of garbage, are answered, not crashed on. */
  @Test
  void aHandoverThatMakesNoSenseMeansPrefillingHereAndAGarbagePullIsRefused() throws Exception {
    com.sun.net.httpserver.HttpServer odd = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.94", 0), 0);
    odd.createContext("/", x -> {
      byte[] b = "{\"kv_transfer_params\":{\"do_remote_prefill\":true,\"remote_host\":\"\",\"remote_port\":0}}"
          .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      x.sendResponseHeaders(200, b.length);
      x.getResponseBody().write(b);
      x.close();
    });
    odd.start();
    try (SimPods prefill = SimPods.start(pod(SimConfig.Role.PREFILL, 1).build(), 1, "127.0.0.85", 0);
        SimPods decode = SimPods.start(pod(SimConfig.Role.DECODE, 1).build(), 1, "127.0.0.86", 0)) {
      assertThat(chat(decode, "127.0.0.94:" + odd.getAddress().getPort()).get().statusCode()).isEqualTo(200);
      assertThat(metric(decode, "sim:pd_requests_total", "outcome=\"prefill_failed\"")).isEqualTo(1);
      assertThat(SimServerTest.post(prefill, KvHandoffs.PULL_PATH, "not json").statusCode()).isEqualTo(400);
      assertThat(SimServerTest.post(prefill, KvHandoffs.PULL_PATH, "{}").statusCode()).isEqualTo(404);
      assertThat(SimServerTest.post(prefill, KvHandoffs.PULL_PATH, "{\"remote_block_ids\":[\"x\"]}").statusCode())
          .isEqualTo(404);
      assertThat(SimServerTest.post(prefill, KvHandoffs.PULL_PATH, "{\"remote_block_ids\":[12345]}").statusCode())
          .as("blocks never held").isEqualTo(404);
    } finally {
      odd.stop(0);
    }
  }

  @Test
  void aPrefillPodThatDiesMidTransferMeansRecomputingHere() throws Exception {
    // 2,000 µs a token: the pull of this prompt's ~2,000 tokens takes seconds, time enough to stop the pod
    SimPods prefill = SimPods.start(pod(SimConfig.Role.PREFILL, 2_000).build(), 1, "127.0.0.85", 0);
    try (SimPods decode = SimPods.start(pod(SimConfig.Role.DECODE, 1).build(), 1, "127.0.0.86", 0)) {
      CompletableFuture<HttpResponse<String>> r = chat(decode, prefill.pods().getFirst().address());
      // its prompt was computed (the one-token request finished): the pull is under way
      await().atMost(Duration.ofSeconds(10))
          .until(() -> metric(prefill, "vllm:request_success_total", "finished_reason=\"length\"") == 1);
      prefill.close();
      assertThat(r.get().statusCode()).isEqualTo(200);
      assertThat(metric(decode, "sim:pd_requests_total", "outcome=\"transfer_failed\"")).isEqualTo(1);
    } finally {
      prefill.close();
    }
  }
}
