package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.chat;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.drainRequestBody;
import static io.llmgw.extproc.server.ExtProcIntegrationTest.subsetHint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.config.core.v3.Metadata;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.scraper.FakeModelServer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, item 10: with active-active EPP replicas, each sees only its own share of a pod's requests. A pod's load
 * must be what the pod reports plus what this replica sent since, or a pod kept busy by the other replica looks idle.
 */
class ReplicaLoadTest {
  @Test
  void item10APodBusyWithTheOtherReplicasRequestsIsNotPickedAsIdle() throws Exception {
    try (EppHarness a = new EppHarness(2, 61, s -> s)) {
      Epp replicaB = Epp.start(EppSettings.defaults(a.configFile).onLoopbackEphemeralPorts(), Clock.systemUTC());
      ManagedChannel toB = NettyChannelBuilder.forAddress("127.0.0.1", replicaB.grpcPort()).usePlaintext().build();
      try {
        FakeModelServer p = a.pods.get(0);
        FakeModelServer q = a.pods.get(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> a.pods.stream()
            .allMatch(pod -> replicaB.datastore().scrapeState(pod.address()).healthy()));

        // Replica A holds one request on P; replica B holds eight on Q. Each pod reports what reached it.
        List<ExtProcCall> held = new ArrayList<>();
        held.add(routeTo(ExtProcCall.open(ExternalProcessorGrpc.newStub(a.channel)), p.address()));
        for (int i = 0; i < 8; i++) {
          held.add(routeTo(ExtProcCall.open(ExternalProcessorGrpc.newStub(toB)), q.address()));
        }
        assertThat(a.inFlight(p.address())).isEqualTo(1);
        assertThat(a.inFlight(q.address())).as("replica A cannot see replica B's requests").isZero();
        p.setVllm(0, 1, 0.1, 4, List.of(), List.of());
        q.setVllm(3, 5, 0.1, 4, List.of(), List.of());
        await().atMost(Duration.ofSeconds(10))
            .until(() -> a.epp.datastore().scrapeState(q.address()).metrics().running() == 5
                && a.epp.datastore().scrapeState(p.address()).metrics().running() == 1);

        for (int i = 0; i < 3; i++) {
          ExtProcCall next = a.open();
          next.send(ExtProcCall.post("/v1/chat/completions"));
          next.send(requestBody(chat("base-model"), true));
          String picked = setHeader(next.next(), EppProtocol.DESTINATION);
          drainRequestBody(next);
          held.add(next);
          assertThat(picked).as("request %d: P runs 1 and this replica's newer requests, Q runs 8", i)
              .isEqualTo(p.address());
        }
        held.forEach(ExtProcCall::cancel);
      } finally {
        toB.shutdownNow();
        replicaB.close();
      }
    }
  }

  static ExtProcCall routeTo(ExtProcCall call, String address) throws InterruptedException {
    Metadata hint = subsetHint(address);
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/chat/completions"), false,
        BodySendMode.FULL_DUPLEX_STREAMED, hint));
    call.send(requestBody(chat("base-model"), true));
    assertThat(setHeader(call.next(), EppProtocol.DESTINATION)).isEqualTo(address);
    drainRequestBody(call);
    return call;
  }
}
