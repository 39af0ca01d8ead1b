package io.llmgw.devproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.llmgw.api.LoopbackPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The Files and Batches API through the dev proxy when the batch service is missing or down: OpenAI-shaped errors. */
class BatchPassthroughTest {
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static HttpResponse<String> get(DevProxy proxy, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withoutABatchServiceTheApiAnswers404SayingHowToStartOne() throws Exception {
    try (DevProxy proxy = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpp("127.0.0.1", LoopbackPorts.free()))) {
      HttpResponse<String> r = get(proxy, "/v1/batches");
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).contains("\"error\"").contains("no batch service behind this proxy").contains("llmgw batch");
      assertThat(BatchPassthrough.handles("/v1/files/file-1/content")).isTrue();
      assertThat(BatchPassthrough.handles("/v1/filesystem")).isFalse();
      assertThat(BatchPassthrough.handles("/v1/chat/completions")).isFalse();
      assertThatThrownBy(() -> ProxySettings.defaults().withBatchService("no-port"))
          .hasMessageContaining("proxy.batchService takes host:port");
    }
  }

  @Test
  void aBatchServiceThatIsDownIsA503() throws Exception {
    try (DevProxy proxy = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withEpp("127.0.0.1", LoopbackPorts.free()).withBatchService("127.0.0.1:" + LoopbackPorts.free()))) {
      HttpResponse<String> r = get(proxy, "/v1/files/file-1");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.body()).contains("the batch service is unavailable");
    }
  }
}
