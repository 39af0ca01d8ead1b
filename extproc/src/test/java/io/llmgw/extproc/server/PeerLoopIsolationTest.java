package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.chat;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.drainRequestBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.api.EppProtocol;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.scraper.FakeModelServer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 51: the peer exchange has a thread of its own ({@code PeerLoop}), apart from the event loops that carry
 * ext_proc's frames. While it is held up (a peer's messages to take in, a tick to write), a replica still routes every
 * request: its peers' counts only age out, and come back once it runs again.
 */
class PeerLoopIsolationTest {
  @Test
  void aReplicaWhosePeerExchangeIsHeldUpStillRoutesAndHearsItsPeerAgainAfter() throws Exception {
    int portA = LoopbackPorts.free();
    int portB = LoopbackPorts.free();
    try (EppHarness a = new EppHarness(2, 73, s -> s.withListen(s.listen().on("127.0.0.1", 0, portA, 0)
        .withPeers(List.of("127.0.0.1:" + portB)).withPeerKey(TestPeers.KEY)))) {
      EppSettings b = EppSettings.defaults(a.configFile).onLoopbackEphemeralPorts();
      CountDownLatch holding = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      try (Epp replicaB = Epp.start(b.withListen(b.listen().on("127.0.0.1", 0, portB, 0)
          .withPeers(List.of("127.0.0.1:" + portA)).withPeerKey(TestPeers.KEY)
          .withStopping(Duration.ZERO, Duration.ofMillis(200))), Clock.systemUTC())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> a.pods.stream()
            .allMatch(pod -> a.epp.datastore().scrapeState(pod.address()).healthy()));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.epp.datastore().peers().freshPeers() == 1
            && replicaB.datastore().peers().freshPeers() == 1);

        a.epp.peerLoop().executor().execute(() -> {
          holding.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("the peer loop is held").isTrue();
        // B goes on sending, but A takes nothing in: what B said ages out at A (its 500 ms freshness)
        await().atMost(Duration.ofSeconds(10)).until(() -> a.epp.datastore().peers().freshPeers() == 0);
        assertThat(holding.getCount()).isZero();
        assertThat(release.getCount()).as("still held").isOne();

        for (int i = 0; i < 3; i++) {
          ExtProcCall call = a.open();
          call.send(ExtProcCall.post("/v1/chat/completions"));
          call.send(requestBody(chat("base-model"), true));
          String picked = setHeader(call.next(), EppProtocol.DESTINATION);
          drainRequestBody(call);
          call.cancel();
          assertThat(picked).as("request %d routed while the peer loop is held", i)
              .isIn(a.pods.stream().map(FakeModelServer::address).toList());
        }
        assertThat(release.getCount()).as("every request was routed while it was held").isOne();

        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.epp.datastore().peers().freshPeers() == 1);
      } finally {
        release.countDown();
      }
    }
  }
}
