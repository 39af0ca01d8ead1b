package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.api.FileModeYaml;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.Rig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 52: scale-down drops nothing in flight. A pod the pool lets go while it streams (the capacity plan shrank the
 * Deployment; the pod leaves the endpoints) finishes the request it serves, through the dev proxy and the EPP, and gets
 * no new one. Simulated pods on 127.0.0.245-246, decoding 40 ms a token so the stream outlasts the change.
 */
class ScaleDownInFlightTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<InputStream> stream(int port, int tokens) throws Exception {
    String body = "{\"model\":\"" + Gateways.BASE + "\",\"stream\":true,\"max_tokens\":" + tokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"count slowly\"}]}";
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
        .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  /** Requests the pod finished, as its vllm:request_success_total says. */
  private static double finished(SimServer pod) throws Exception {
    String text = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + pod.address() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return text.lines().filter(l -> l.startsWith("vllm:request_success_total"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  @Test
  void aPodLetGoWhileItStreamsFinishesItsRequestAndGetsNoNewOne(@TempDir Path dir) throws Exception {
    SimPods pods = SimPods.start(SimConfig.builder().decode(40, 0).build(), 2, "127.0.0.245", 8000);
    Path config = Rig.writeConfig(dir.resolve("pool.yaml"), pods, List.of(Gateways.BASE));
    try (Rig rig = Rig.start(pods, EppSettings.defaults(config).onLoopbackEphemeralPorts(),
        ProxySettings.defaults().withListener("127.0.0.1", 0))) {
      HttpResponse<InputStream> r = stream(rig.proxyPort(), 60);
      assertThat(r.statusCode()).isEqualTo(200);
      BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
      int chunks = 0;
      String line;
      while ((line = lines.readLine()) != null && chunks == 0) {
        chunks += line.startsWith("data: {") ? 1 : 0;
      }
      SimServer serving = pods.pods().stream().filter(p -> p.engine().runningCount() == 1).findFirst().orElseThrow();
      SimServer staying = pods.pods().stream().filter(p -> p != serving).findFirst().orElseThrow();

      // the pool lets the serving pod go: it leaves the file's pods, as a Terminating pod leaves the endpoints
      Files.writeString(config, FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
          + FileModeYaml.route("route-0", "sim-pool", Gateways.BASE, 0)
          + FileModeYaml.pods("sim", "sim", List.of(staying.address())));
      await().atMost(Duration.ofSeconds(10)).until(() -> rig.epp().datastore().topology().poolsByKey().values()
          .stream().mapToInt(p -> p.endpoints().size()).sum() == 1);
      assertThat(serving.engine().runningCount()).as("still streaming after it left the pool").isEqualTo(1);

      HttpResponse<InputStream> next = stream(rig.proxyPort(), 5);
      boolean done = false;
      while ((line = lines.readLine()) != null) {
        chunks += line.startsWith("data: {") ? 1 : 0;
        done |= line.equals("data: [DONE]");
        assertThat(line).as("no error in the stream").doesNotContain("\"error\"");
      }
      assertThat(done).as("the stream ended as vLLM ends one").isTrue();
      assertThat(chunks).as("every token arrived (a role chunk and a usage chunk may come beside them)")
          .isGreaterThanOrEqualTo(60);
      assertThat(next.statusCode()).isEqualTo(200);
      String rest = new String(next.body().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(rest).contains("data: [DONE]");
      assertThat(finished(serving)).as("the pod let go finished its request and got no other").isEqualTo(1);
      assertThat(finished(staying)).isEqualTo(1);
    }
  }
}
