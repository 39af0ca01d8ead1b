package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.SharedBudgetTest.lastMinute;
import static io.llmgw.extproc.server.TenancyIntegrationTest.chat;
import static io.llmgw.extproc.server.TenancyIntegrationTest.key;
import static io.llmgw.extproc.server.TenancyIntegrationTest.routed;
import static io.llmgw.extproc.server.TenancyIntegrationTest.send;
import static io.llmgw.extproc.server.TenancyIntegrationTest.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.tenancy.controller.TenancySettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 2: a replica that restarts knows what the fleet knows before it is ready. What a tenant spent through
 * the replica before it went is not given back by the restart: its peer holds it as a replica that left, and greets
 * the new process with it.
 */
class FleetRestartTest {
  static String metric(Epp epp, String name) throws Exception {
    String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + epp.metricsPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    return text.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElse(name + " absent");
  }

  private static Epp replica(Path config, TenancySettings tenancy, int healthPort, int peerPort) throws Exception {
    EppSettings b = EppSettings.defaults(config).onLoopbackEphemeralPorts().withTenancy(tenancy);
    return Epp.start(b.withListen(b.listen().on("127.0.0.1", 0, healthPort, 0)
        .withPeers(List.of("127.0.0.1:" + peerPort)).withPeerKey(TestPeers.KEY)
        .withStopping(Duration.ZERO, Duration.ofMillis(200))), Clock.systemUTC());
  }

  @Test
  void whatATenantSpentThroughAReplicaStaysSpentWhenItRestartsAndTheNewProcessIsGreetedWithIt() throws Exception {
    Path keys = Files.createTempFile("llmgw-keys", ".yaml");
    Files.writeString(keys,
        "keys:\n  - {tenant: team-a, sha256: " + TenancyIntegrationTest.sha256("sk-a-0001") + "}\n");
    TenancySettings tenancy = new TenancySettings(keys, null, Duration.ofSeconds(5));
    int portA = LoopbackPorts.free();
    int portB = LoopbackPorts.free();
    try (EppHarness a = new EppHarness(1, 246, TenancyIntegrationTest.BUDGETS, s -> s.withTenancy(tenancy)
        .withListen(s.listen().on("127.0.0.1", 0, portA, 0).withPeers(List.of("127.0.0.1:" + portB))
            .withPeerKey(TestPeers.KEY)))) {
      Epp b = replica(a.configFile, tenancy, portB, portA);
      await().atMost(Duration.ofSeconds(10)).until(() -> b.datastore().peers().freshPeers() == 1
          && a.epp.datastore().peers().freshPeers() == 1
          && b.datastore().scrapeState(a.pods.getFirst().address()).healthy());
      assertThat(metric(b, "llmgw_peer_warm")).isEqualTo("llmgw_peer_warm 1.0");
      // team-a's minute is 3,000 tokens; each request reserves about 1,025: two through B
      ManagedChannel toB = NettyChannelBuilder.forAddress("127.0.0.1", b.grpcPort()).usePlaintext().build();
      long spentAtB;
      try {
        for (int i = 0; i < 2; i++) { // routed, and in flight when B goes
          assertThat(routed(send(ExtProcCall.open(ExternalProcessorGrpc.newStub(toB)), key("team-a"),
              chat("base-model")))).isTrue();
        }
        spentAtB = lastMinute(b, "team-a");
        assertThat(spentAtB).isGreaterThan(2_000);
        await().atMost(Duration.ofSeconds(5)).until(() -> lastMinute(a.epp, "team-a") == spentAtB);
        b.close(); // B goes (its watchers hear it end the stream first)
      } finally {
        toB.shutdownNow();
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> metric(a.epp, "llmgw_peer_departed")
          .equals("llmgw_peer_departed 1.0"));
      assertThat(lastMinute(a.epp, "team-a")).as("A holds what B spent").isEqualTo(spentAtB);

      Epp restarted = replica(a.configFile, tenancy, portB, portA); // the same address, a new process
      ManagedChannel toB2 = NettyChannelBuilder.forAddress("127.0.0.1", restarted.grpcPort()).usePlaintext().build();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> metric(restarted, "llmgw_ready")
            .equals("llmgw_ready 1.0") && a.epp.datastore().peers().freshPeers() == 1);
        assertThat(metric(restarted, "llmgw_peer_warm")).isEqualTo("llmgw_peer_warm 1.0");
        assertThat(metric(restarted, "llmgw_peer_departed")).as("greeted with B's spending")
            .isEqualTo("llmgw_peer_departed 1.0");
        assertThat(lastMinute(restarted, "team-a")).isEqualTo(spentAtB);
        ExtProcCall third = ExtProcCall.open(ExternalProcessorGrpc.newStub(toB2));
        assertThat(status(send(third, key("team-a"), chat("base-model"))))
            .as("the restart gave nothing back: 2 of 3,000 tokens' worth are spent").isEqualTo(429);
        ExtProcCall throughA = a.open();
        assertThat(status(send(throughA, key("team-a"), chat("base-model")))).as("nor at A").isEqualTo(429);
        assertThat(lastMinute(a.epp, "team-a")).as("counted once at A: B left, B2 spent nothing")
            .isEqualTo(spentAtB);
      } finally {
        toB2.shutdownNow();
        restarted.close();
      }
    } finally {
      Files.deleteIfExists(keys);
    }
  }
}
