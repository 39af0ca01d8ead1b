package io.llmgw.extproc.server;

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
import io.llmgw.extproc.tenancy.controller.TenantRow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 3: a budget holds across replicas. What a tenant spent through one replica travels on the peer
 * exchange, and the other counts it against the same budget, so the tenant cannot spend it twice by spreading its
 * requests.
 */
class SharedBudgetTest {
  static long lastMinute(Epp epp, String tenant) {
    return epp.status().tenants().stream().filter(r -> r.tenant().equals(tenant)).mapToLong(TenantRow::lastMinute)
        .findFirst().orElse(0);
  }

  @Test
  void whatATenantSpentThroughOneReplicaCountsAtTheOther() throws Exception {
    Path keys = Files.createTempFile("llmgw-keys", ".yaml");
    Files.writeString(keys, "keys:\n  - {tenant: team-a, sha256: " + TenancyIntegrationTest.sha256("sk-a-0001")
        + "}\n  - {tenant: team-c, sha256: " + TenancyIntegrationTest.sha256("sk-c-0007") + "}\n");
    TenancySettings tenancy = new TenancySettings(keys, null, Duration.ofSeconds(5));
    int portA = LoopbackPorts.free();
    int portB = LoopbackPorts.free();
    try (EppHarness a = new EppHarness(1, 243, TenancyIntegrationTest.BUDGETS, s -> s.withTenancy(tenancy)
        .withListen(s.listen().on("127.0.0.1", 0, portA, 0).withPeers(List.of("127.0.0.1:" + portB))
            .withPeerKey(TestPeers.KEY)))) {
      EppSettings b = EppSettings.defaults(a.configFile).onLoopbackEphemeralPorts().withTenancy(tenancy);
      Epp replicaB = Epp.start(b.withListen(b.listen().on("127.0.0.1", 0, portB, 0)
          .withPeers(List.of("127.0.0.1:" + portA)).withPeerKey(TestPeers.KEY)
          .withStopping(Duration.ZERO, Duration.ofMillis(200))),
          Clock.systemUTC());
      ManagedChannel toB = NettyChannelBuilder.forAddress("127.0.0.1", replicaB.grpcPort()).usePlaintext().build();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> replicaB.datastore().scrapeState(a.pods.getFirst()
            .address()).healthy() && replicaB.datastore().peers().freshPeers() == 1
            && a.epp.datastore().peers().freshPeers() == 1); // a peer not heard yet holds its share of the budget
        // team-a's minute is 3,000 tokens; each request reserves about 1,025: two through A fit, a third anywhere not
        ExtProcCall first = a.open();
        ExtProcCall second = a.open();
        assertThat(routed(send(first, key("team-a"), chat("base-model")))).isTrue();
        assertThat(routed(send(second, key("team-a"), chat("base-model")))).isTrue();
        long spentAtA = lastMinute(a.epp, "team-a");
        await().atMost(Duration.ofSeconds(5)).until(() -> lastMinute(replicaB, "team-a") == spentAtA);

        ExtProcCall third = ExtProcCall.open(ExternalProcessorGrpc.newStub(toB));
        assertThat(status(send(third, key("team-a"), chat("base-model")))).as("B knows what A admitted")
            .isEqualTo(429);
        first.cancel();
        second.cancel();

        // team-c may have one request in flight, wherever it is
        ExtProcCall held = a.open();
        assertThat(routed(send(held, key("team-c"), chat("base-model")))).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> replicaB.status().tenants().stream()
            .anyMatch(r -> r.tenant().equals("team-c") && r.inFlight() == 1));
        assertThat(status(send(ExtProcCall.open(ExternalProcessorGrpc.newStub(toB)), key("team-c"),
            chat("base-model")))).as("its one request runs through A").isEqualTo(429);
        held.cancel();
      } finally {
        toB.shutdownNow();
        replicaB.close();
      }
    } finally {
      Files.deleteIfExists(keys);
    }
  }
}
