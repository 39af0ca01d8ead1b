package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.drainRequestBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.scraper.FakeModelServer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: replicas without the engines' events share where they routed prompts. A long prompt one replica sends to a
 * pod is sent there by its peer too, which never routed it, over the real exchange on the health ports; pods otherwise
 * alike, so only the prefix index can tell them apart. A replica that starts later learns what its peer routed before
 * from the peer's first message.
 */
class PeerPrefixesTest {
  @Test
  void aPromptOneReplicaRoutedGoesToTheSamePodFromItsPeerEvenOneThatStartedLater() throws Exception {
    int portA = LoopbackPorts.free();
    int portB = LoopbackPorts.free();
    try (EppHarness a = new EppHarness(4, 64, s -> s.withPolicy(PolicyShorthand.SCORERS, 50)
        .withListen(s.listen().on("127.0.0.1", 0, portA, 0).withPeers(List.of("127.0.0.1:" + portB))
            .withPeerKey(TestPeers.KEY)))) {
      // before B exists: what A routes now, B can only learn from A's greeting when it starts watching
      List<String> early = List.of(route(a.open(), document(0)), route(a.open(), document(1)),
          route(a.open(), document(2)));
      EppSettings b = EppSettings.defaults(a.configFile).onLoopbackEphemeralPorts()
          .withPolicy(PolicyShorthand.SCORERS, 50);
      Epp replicaB = Epp.start(b.withListen(b.listen().on("127.0.0.1", 0, portB, 0)
          .withPeers(List.of("127.0.0.1:" + portA)).withPeerKey(TestPeers.KEY)
          .withStopping(Duration.ZERO, Duration.ofMillis(200))),
          Clock.systemUTC());
      ManagedChannel toB = NettyChannelBuilder.forAddress("127.0.0.1", replicaB.grpcPort()).usePlaintext().build();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> a.pods.stream().map(FakeModelServer::address)
            .allMatch(p -> replicaB.datastore().scrapeState(p).healthy()));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.epp.datastore().peers().freshPeers() == 1
            && replicaB.datastore().peers().freshPeers() == 1);
        for (int doc = 0; doc < early.size(); doc++) {
          assertThat(route(ExtProcCall.open(ExternalProcessorGrpc.newStub(toB)), document(doc)))
              .as("document %d, routed by A before B started", doc).isEqualTo(early.get(doc));
        }

        Set<String> podsUsed = new HashSet<>(early);
        for (int doc = early.size(); doc < 8; doc++) {
          String atA = route(a.open(), document(doc));
          podsUsed.add(atA);
          // A's request has ended; B hears of it (its count of A's requests back to 0 means A's next message came)
          await().atMost(Duration.ofSeconds(5)).until(() -> inFlight(replicaB) == 0);
          String atB = route(ExtProcCall.open(ExternalProcessorGrpc.newStub(toB)), document(doc));
          assertThat(atB).as("document %d: B never routed it; A sent it to %s", doc, atA).isEqualTo(atA);
        }
        assertThat(podsUsed).as("the documents spread over the pods (else any pick would agree)").hasSizeGreaterThan(1);
        assertThat(a.metricsText()).contains("llmgw_peer_routed_blocks_total{direction=\"sent\"}");
      } finally {
        toB.shutdownNow();
        replicaB.close();
      }
    }
  }

  private static String document(int n) {
    return ("document " + n + " ").repeat(200) + "question?";
  }

  /** Routes one streamed chat request and ends it; answers the pod picked. */
  private static String route(ExtProcCall call, String prompt) throws InterruptedException {
    call.send(ExtProcCall.post("/v1/chat/completions"));
    call.send(requestBody("{\"model\":\"base-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt
        + "\"}],\"stream\":true}", true));
    String picked = setHeader(call.next(), EppProtocol.DESTINATION);
    drainRequestBody(call);
    call.cancel();
    return picked;
  }

  /** What a replica counts in flight, its own and its peer's, at any pod. */
  private static int inFlight(Epp replica) {
    return replica.datastore().allStates().stream().mapToInt(e -> e.inFlight().total()).sum();
  }
}
