package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.post;
import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Many concurrent streams that end every way a stream can end: afterwards nothing is counted in flight. */
class InFlightLeakTest {
  EppHarness h;

  @BeforeEach
  void start() throws Exception {
    h = new EppHarness(3, 71, s -> s);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  @Test
  void everyEndingReleasesItsCount() throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(16);
    List<Future<String>> runs = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      int n = i;
      runs.add(clients.submit(() -> oneRequest(n)));
    }
    List<String> endings = new ArrayList<>();
    for (Future<String> f : runs) {
      endings.add(f.get(30, TimeUnit.SECONDS));
    }
    clients.shutdown();

    assertThat(endings).contains("completed", "cancelled-mid-response", "cancelled-after-route", "half-closed",
        "rejected");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      for (var pod : h.pods) {
        assertThat(h.inFlight(pod.address())).as(pod.address()).isZero();
      }
    });
    String metrics = h.metricsText();
    assertThat(metrics).doesNotContainPattern("llmgw_inflight_requests\\{[^}]*\\} [1-9]");
  }

  private String oneRequest(int n) throws InterruptedException {
    ExtProcCall call = h.open();
    call.send(post("/v1/chat/completions"));
    String model = n % 10 == 0 ? "nobody-serves-this" : (n % 2 == 0 ? "adapter-a" : "split");
    call.send(requestBody("{\"model\":\"" + model + "\",\"messages\":[]}", true));
    ProcessingResponse first = call.next();
    if (first.hasImmediateResponse()) {
      call.end();
      return "rejected";
    }
    call.next(); // the re-emitted body
    switch ((n / 3) % 4) {
      case 0 -> {
        call.cancel();
        return "cancelled-after-route";
      }
      case 1 -> {
        call.send(ExtProcCall.responseHeaders(200, "text/event-stream", null, false));
        call.next();
        call.send(ExtProcCall.responseBody("data: {\"model\":\"x\"}\n\n", false));
        call.next();
        call.cancel();
        return "cancelled-mid-response";
      }
      case 2 -> {
        call.send(ExtProcCall.responseHeaders(200, "application/json", null, false));
        call.next();
        call.end();
        return "half-closed";
      }
      default -> {
        call.send(ExtProcCall.responseHeaders(200, "application/json", null, false));
        call.next();
        call.send(ExtProcCall.responseBody("{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}", true));
        call.next();
        call.end();
        return "completed";
      }
    }
  }
}
