package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.post;
import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.chat;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.routeFullDuplex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.llmgw.api.EppProtocol;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.scraper.FakeModelServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, in the Endpoint Picker Protocol's own terms (real gRPC, real ext_proc frames, real HTTP pods): every pod
 * lists every adapter, as vLLM's {@code /v1/models} does for registered adapters, and one pod reports the adapter
 * running in {@code vllm:lora_requests_info}. The default policy sends the adapter's requests to that pod while it is
 * below the threshold, whatever the body's framing, and the other pods (whose batches are emptier) only after.
 */
class AdapterActivityIntegrationTest {
  static final int THRESHOLD = 3;
  EppHarness h;
  FakeModelServer active;

  @BeforeEach
  void start() throws Exception {
    h = new EppHarness(3, 55, s -> s.withPolicy(PolicyShorthand.SEED, THRESHOLD));
    h.pods.forEach(p -> p.setVllm(0, 0, 0.1, 4, List.of(), List.of()));
    active = h.pods.get(1);
    active.setVllm(0, 1, 0.1, 4, List.of("adapter-a", "split-v1"), List.of());
    await().atMost(Duration.ofSeconds(10)).until(() -> h.epp.datastore().scrapeState(active.address()).metrics()
        .runningAdapters().contains("adapter-a"));
    assertThat(h.pods).allSatisfy(p -> assertThat(h.epp.datastore().scrapeState(p.address()).metrics()
        .listedAdapters()).as("listed everywhere").contains("adapter-a", "split-v1"));
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  String picked(ExtProcCall call, String... chunks) throws InterruptedException {
    return setHeader(routeFullDuplex(call, chunks), EppProtocol.DESTINATION);
  }

  @Test
  void theAdapterGoesToThePodWhereItRunsNotToAnIdlePodThatListsIt() throws Exception {
    for (int i = 0; i < 5; i++) {
      ExtProcCall call = h.open();
      assertThat(picked(call, chat("adapter-a"))).isEqualTo(active.address());
      call.cancel();
    }
  }

  @Test
  void itPacksThereUpToTheThresholdThenTheNextRequestGoesElsewhere() throws Exception {
    List<ExtProcCall> open = new ArrayList<>();
    for (int i = 0; i < THRESHOLD; i++) {
      ExtProcCall call = h.open();
      open.add(call);
      assertThat(picked(call, chat("adapter-a"))).as("request %d", i).isEqualTo(active.address());
    }
    ExtProcCall over = h.open();
    String next = picked(over, chat("adapter-a"));
    assertThat(next).as("the active pod is at the threshold").isNotEqualTo(active.address());
    ExtProcCall again = h.open();
    assertThat(picked(again, chat("adapter-a"))).as("and the overflow packs where it went").isEqualTo(next);
    over.cancel();
    again.cancel();
    open.forEach(ExtProcCall::cancel);
  }

  @Test
  void aBodySplitInFramesGoesThereToo() throws Exception {
    String body = chat("adapter-a");
    for (int i = 0; i < 3; i++) {
      ExtProcCall call = h.open();
      assertThat(picked(call, body.substring(0, 3), body.substring(3, 17), body.substring(17)))
          .isEqualTo(active.address());
      call.cancel();
    }
  }

  @Test
  void aOneMebibyteBodyForARoutesTargetGoesWhereTheTargetRuns() throws Exception {
    StringBuilder sb = new StringBuilder("{\"messages\":[");
    while (sb.length() < (1 << 20)) {
      sb.append("{\"role\":\"user\",\"content\":\"").append("lorem ipsum ".repeat(50)).append("\"},");
    }
    sb.setLength(sb.length() - 1);
    byte[] body = sb.append("],\"model\":\"split\"}").toString().getBytes(StandardCharsets.UTF_8);
    ExtProcCall call = h.open();
    call.send(post("/v1/chat/completions"));
    for (int off = 0; off < body.length; off += 16_384) {
      int end = Math.min(body.length, off + 16_384);
      call.send(requestBody(ByteString.copyFrom(body, off, end - off), end == body.length));
    }
    assertThat(setHeader(call.next(), EppProtocol.DESTINATION)).as("the model comes last, after 1 MiB")
        .isEqualTo(active.address());
    call.cancel();
  }

  @Test
  void afterItsLastRequestEndsTheAdapterStaysWithThePodWhereItRanLately() throws Exception {
    active.setVllm(0, 0, 0.1, 4, List.of(), List.of());
    await().atMost(Duration.ofSeconds(10)).until(() -> h.epp.datastore().scrapeState(active.address()).metrics()
        .runningAdapters().isEmpty());
    ExtProcCall call = h.open();
    assertThat(picked(call, chat("adapter-a"))).as("warm: vLLM keeps it in its GPU slot").isEqualTo(active.address());
    call.cancel();

    active.setVllm(0, 4, 0.1, 4, List.of("x", "y", "z", "w"), List.of());
    await().atMost(Duration.ofSeconds(10)).until(() -> h.epp.datastore().scrapeState(active.address()).metrics()
        .runningAdapters().size() == 4);
    ExtProcCall evicted = h.open();
    assertThat(picked(evicted, chat("adapter-a"))).as("four other adapters took every slot since")
        .isNotEqualTo(active.address());
    evicted.cancel();
  }
}
