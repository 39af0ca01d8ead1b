package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.picker.InFlight;
import io.llmgw.scraper.FakeModelServer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 4: replicas watching each other's in-flight counts ({@code --peers}, on their health ports) over the
 * real gRPC method. What
 * one replica has in flight at a pod counts at the other within a tick or two, both ways; and when a replica goes away,
 * what it said stops counting at once.
 */
class PeerCountsTest {
  private static InFlight inFlightAt(Epp epp, String address) {
    return epp.datastore().allStates().stream().filter(e -> e.address().equals(address)).findFirst().orElseThrow()
        .inFlight();
  }

  @Test
  void aReplicaCountsWhatItsPeerHasInFlightAtEachPodAndForgetsItWhenThePeerGoes() throws Exception {
    int portA = LoopbackPorts.free();
    int portB = LoopbackPorts.free();
    try (EppHarness a = new EppHarness(2, 58, s -> s.withListen(s.listen().on("127.0.0.1", 0, portA, 0)
        .withPeers(List.of("127.0.0.1:" + portB)).withPeerKey(TestPeers.KEY)))) {
      EppSettings b = EppSettings.defaults(a.configFile).onLoopbackEphemeralPorts();
      Epp replicaB = Epp.start(b.withListen(b.listen().on("127.0.0.1", 0, portB, 0)
          .withPeers(List.of("127.0.0.1:" + portA)).withPeerKey(TestPeers.KEY)
          .withStopping(Duration.ZERO, Duration.ofMillis(200))),
          Clock.systemUTC());
      ManagedChannel toB = NettyChannelBuilder.forAddress("127.0.0.1", replicaB.grpcPort()).usePlaintext().build();
      List<ExtProcCall> held = new ArrayList<>();
      try {
        FakeModelServer p = a.pods.get(0);
        FakeModelServer q = a.pods.get(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> a.pods.stream()
            .allMatch(pod -> replicaB.datastore().scrapeState(pod.address()).healthy()
                && a.epp.datastore().scrapeState(pod.address()).healthy()));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.epp.datastore().peers().freshPeers() == 1
            && replicaB.datastore().peers().freshPeers() == 1);

        // replica B holds eight requests on Q; both pods go on reporting nothing running or waiting
        for (int i = 0; i < 8; i++) {
          held.add(ReplicaLoadTest.routeTo(ExtProcCall.open(ExternalProcessorGrpc.newStub(toB)), q.address()));
        }
        assertThat(a.inFlight(q.address())).as("replica A sent Q nothing itself").isZero();
        // what B has at Q counts at A (whether it is newer than the pods' last reports, PeerLoadsTest checks)
        await().atMost(Duration.ofSeconds(5)).until(() -> inFlightAt(a.epp, q.address()).total() == 8);
        assertThat(inFlightAt(a.epp, q.address()).forModel("base-model")).isEqualTo(8);
        assertThat(inFlightAt(a.epp, q.address()).inPrefill()).as("issue 29, item 3: no first token came back")
            .isEqualTo(8);
        assertThat(inFlightAt(a.epp, q.address()).prefillTokens()).as("their prompts' tokens, shared")
            .isEqualTo(inFlightAt(replicaB, q.address()).prefillTokens()).isPositive();
        assertThat(inFlightAt(a.epp, p.address()).total()).isZero();
        held.add(ReplicaLoadTest.routeTo(a.open(), p.address())); // and the other way round
        await().atMost(Duration.ofSeconds(5)).until(() -> inFlightAt(replicaB, p.address()).total() == 1);

        replicaB.close(); // its watch ends: A forgets B's counts now, not when they would go stale
        await().atMost(Duration.ofSeconds(5)).until(() -> a.epp.datastore().peers().freshPeers() == 0);
        assertThat(inFlightAt(a.epp, q.address()).total()).isZero();
      } finally {
        held.forEach(ExtProcCall::cancel);
        toB.shutdownNow();
        replicaB.close();
      }
    }
  }
}
