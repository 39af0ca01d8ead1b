package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The metrics and admin port under clients that connect and never finish their request. */
class MetricsPortTest {
  /** Issue 13, item 8: fifteen half-sent requests blocked /metrics for about 40 s. */
  @Test
  void item8ScrapesAreServedWhileSlowClientsHoldConnections() throws Exception {
    try (EppHarness h = new EppHarness(1, 47, s -> s)) {
      List<Socket> slow = new ArrayList<>();
      try {
        for (int i = 0; i < 40; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", h.epp.metricsPort()), 2_000);
          OutputStream out = s.getOutputStream();
          out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)); // never ended
          out.flush();
          slow.add(s);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + h.epp.metricsPort() + "/metrics")).timeout(Duration.ofSeconds(3))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("llmgw_adapter_cache_miss_wait_seconds");
      } finally {
        for (Socket s : slow) {
          s.close();
        }
      }
    }
  }
}
