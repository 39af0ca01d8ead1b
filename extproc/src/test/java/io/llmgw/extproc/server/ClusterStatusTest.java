package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.control.cluster.ClusterConfigSource;
import io.llmgw.extproc.control.cluster.Kinds;
import io.llmgw.scraper.FakeModelServer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** LLMRoute status conditions, written by the leading replica only and only when they change; replica failover. */
@EnableKubernetesMockClient(crud = true)
class ClusterStatusTest {
  static KubernetesClient client;
  static KubernetesMockServer server;
  static FakeModelServer pod;

  @BeforeAll
  static void startPod() throws Exception {
    pod = new FakeModelServer("127.0.0.165", 0);
    pod.setVllm(0, 0, 0.1, 4, List.of(), List.of());
    pod.setModels("base-model", List.of("good-lora", "chat-lora", "late-lora", "after-lora", "mine-lora"));
  }

  @AfterAll
  static void stopPod() {
    pod.close();
  }

  static String metrics(ClusterEpp e) throws Exception {
    return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + e.epp.metricsPort() + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
  }

  static String summary(Map<String, Condition> conditions, String type) {
    Condition c = conditions.get(type);
    return c == null ? "-" : c.getStatus() + "/" + c.getReason();
  }

  @Test
  void conditionsSayWhyARouteIsOrIsNotServedAndAreRewrittenOnlyWhenTheyChange() throws Exception {
    FakeCluster k = new FakeCluster(client, "status");
    k.pool("pool", "vllm", pod.port());
    k.route("good", "pool", "good-lora", 0);
    k.route("lost", "missing-pool", "lost-lora", 0);
    k.route("empty", "idle-pool", "empty-lora", 0);
    k.route("ghost", "pool", "ghost-lora", 0);
    k.pool("idle-pool", "nobody", 8000);
    k.apply(Kinds.ROUTE, """
        apiVersion: inference.x-k8s.io/v1alpha1
        kind: LLMRoute
        metadata: {name: broken}
        spec: {backendRefs: [{name: pool}], adapter: {name: x, targets: [{name: x-v1, weight: 0}]}}
        """);
    k.pod("p0", "vllm", "127.0.0.165", true);
    try (ClusterEpp e = new ClusterEpp(client, "status", "solo", true)) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        assertThat(summary(k.conditions("good"), "Accepted")).isEqualTo("True/Accepted");
        assertThat(summary(k.conditions("good"), "ResolvedRefs")).isEqualTo("True/ResolvedRefs");
        assertThat(summary(k.conditions("good"), "Ready")).isEqualTo("True/EndpointsReady");
        assertThat(summary(k.conditions("lost"), "ResolvedRefs")).isEqualTo("False/PoolNotFound");
        assertThat(summary(k.conditions("lost"), "Ready")).isEqualTo("False/NoReadyEndpoints");
        assertThat(summary(k.conditions("empty"), "ResolvedRefs")).isEqualTo("True/ResolvedRefs");
        assertThat(summary(k.conditions("empty"), "Ready")).isEqualTo("False/NoReadyEndpoints");
        assertThat(summary(k.conditions("broken"), "Accepted")).isEqualTo("False/Invalid");
        assertThat(summary(k.conditions("ghost"), "Ready")).isEqualTo("False/ModelNotServed");
      });
      assertThat(k.conditions("broken").get("Accepted").getMessage())
          .isEqualTo("spec.adapter.targets[0].weight: 0 is out of range (1..1000000)");
      assertThat(k.conditions("lost").get("ResolvedRefs").getMessage()).contains("missing-pool");
      assertThat(k.conditions("empty").get("Ready").getMessage()).isEqualTo("its pools select no ready pod");
      assertThat(k.conditions("good").get("Accepted").getObservedGeneration()).isNotNull();

      String version = k.resourceVersion("good");
      long writes = e.source().statusWrites();
      long passes = e.source().statusPasses();
      await().atMost(Duration.ofSeconds(10)).until(() -> e.source().statusPasses() >= passes + 3);
      assertThat(e.source().statusWrites()).as("checks that find nothing new write nothing").isEqualTo(writes);
      assertThat(k.resourceVersion("good")).isEqualTo(version);

      k.route("twin", "pool", "good-lora", 0);
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        assertThat(summary(k.conditions("twin"), "Accepted")).isEqualTo("False/ModelConflict");
        assertThat(k.conditions("twin").get("Accepted").getMessage()).contains("LLMRoute 'good'");
      });
      assertThat(summary(k.conditions("good"), "Accepted")).as("the older route keeps its model").isEqualTo(
          "True/Accepted");
      String transition = k.conditions("good").get("Ready").getLastTransitionTime();

      k.deletePod("p0");
      await().atMost(Duration.ofSeconds(10)).until(() -> summary(k.conditions("good"), "Ready")
          .equals("False/NoReadyEndpoints"));
      assertThat(k.conditions("good").get("Accepted").getLastTransitionTime())
          .as("an unchanged condition keeps its transition time").isNotNull();
      assertThat(transition).isNotNull();
    }
  }

  @Test
  void anEppServingLabelledPoolsLeavesOtherPoolsAndTheirRoutesToTheirOwnEpp() throws Exception {
    FakeCluster k = new FakeCluster(client, "split");
    k.apply(Kinds.POOL, String.join("\n", "apiVersion: inference.networking.k8s.io/v1", "kind: InferencePool",
        "metadata: {name: ours, labels: {team: a}}",
        "spec: {selector: {matchLabels: {app: vllm}}, targetPorts: [{number: " + pod.port() + "}]}"));
    k.pool("theirs", "vllm", pod.port());
    k.route("mine", "ours", "mine-lora", 0);
    k.route("other", "theirs", "other-lora", 0);
    k.pod("p0", "vllm", "127.0.0.165", true);
    var cluster = SourceSettings.Cluster.defaults("split", "team-a").withLeaderElection(false)
        .withPoolLabels(Map.of("team", "a"))
        .withLeaseTimings(Duration.ofMillis(1500), Duration.ofMillis(1000), Duration.ofMillis(200),
            Duration.ofMillis(200));
    try (Epp epp = Epp.start(EppSettings.defaults(cluster).onLoopbackEphemeralPorts(), Clock.systemUTC(), client)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> summary(k.conditions("mine"), "Ready")
          .equals("True/EndpointsReady"));
      assertThat(epp.datastore().topology().poolsByKey()).containsOnlyKeys(new io.llmgw.api.PoolKey("split", "ours"));
      ClusterConfigSource source = (ClusterConfigSource) epp.configSource();
      long passes = source.statusPasses();
      await().atMost(Duration.ofSeconds(10)).until(() -> source.statusPasses() >= passes + 2);
      assertThat(k.conditions("other")).as("another EPP's route: no PoolNotFound from this one").isEmpty();
    }
  }

  @Test
  void aLeaderThatDiesWithoutReleasingTheLeaseIsReplacedOnceTheLeaseExpires() throws Exception {
    FakeCluster k = new FakeCluster(client, "crash");
    k.pool("pool", "vllm", pod.port());
    k.route("chat", "pool", "chat-lora", 0);
    k.pod("p0", "vllm", "127.0.0.165", true);
    KubernetesClient doomedClient = server.createClient();
    ClusterEpp doomed = new ClusterEpp(doomedClient, "crash", "doomed", true);
    await().atMost(Duration.ofSeconds(10)).until(() -> doomed.source().leading());
    ClusterEpp survivor = new ClusterEpp(client, "crash", "survivor", true);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> survivor.route("chat-lora").startsWith("127.0.0.165"));
      assertThat(survivor.source().leading()).isFalse();
      doomedClient.close(); // the API server no longer hears from it: no renewal, no release
      assertThat(client.leases().inNamespace("crash").withName("llmgw-epp").get().getSpec().getHolderIdentity())
          .as("the lease still names the dead leader: it was not released").isEqualTo("doomed");
      await().atMost(Duration.ofSeconds(15)).until(() -> survivor.source().leading());
      k.route("after", "pool", "after-lora", 0);
      await().atMost(Duration.ofSeconds(10)).until(() -> summary(k.conditions("after"), "Accepted")
          .equals("True/Accepted"));
      assertThat(survivor.route("after-lora")).startsWith("127.0.0.165");
    } finally {
      survivor.close();
      doomed.close();
    }
  }

  @Test
  void replicasServeTogetherAndTheSurvivorTakesOverStatusWhenTheLeaderDies() throws Exception {
    FakeCluster k = new FakeCluster(client, "ha");
    k.pool("pool", "vllm", pod.port());
    k.route("chat", "pool", "chat-lora", 0);
    k.pod("p0", "vllm", "127.0.0.165", true);
    ClusterEpp a = new ClusterEpp(client, "ha", "replica-a", true);
    ClusterEpp b = new ClusterEpp(client, "ha", "replica-b", true);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> a.source().leading() ^ b.source().leading());
      for (ClusterEpp replica : List.of(a, b)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> replica.route("chat-lora").startsWith("127.0.0.165"));
      }
      ClusterEpp leader = a.source().leading() ? a : b;
      ClusterEpp follower = leader == a ? b : a;
      await().atMost(Duration.ofSeconds(10)).until(() -> summary(k.conditions("chat"), "Ready")
          .equals("True/EndpointsReady"));
      assertThat(follower.source().statusWrites()).as("only the leader writes status").isZero();
      assertThat(metrics(leader)).contains("llmgw_leader 1.0", "llmgw_cluster_synced 1.0")
          .containsPattern("llmgw_route_status_writes_total [1-9]");
      assertThat(metrics(follower)).contains("llmgw_leader 0.0", "llmgw_route_status_writes_total 0.0");

      leader.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> follower.source().leading());
      assertThat(follower.route("chat-lora")).as("routing never depended on leadership").startsWith("127.0.0.165");
      k.route("late", "pool", "late-lora", 0);
      await().atMost(Duration.ofSeconds(10)).until(() -> summary(k.conditions("late"), "Accepted")
          .equals("True/Accepted"));
      assertThat(follower.source().statusWrites()).isPositive();
      assertThat(follower.route("late-lora")).startsWith("127.0.0.165");
    } finally {
      a.close();
      b.close();
    }
  }
}
