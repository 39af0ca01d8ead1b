package io.llmgw.extproc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.llmgw.extproc.control.cluster.Kinds;
import io.llmgw.scraper.FakeModelServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode against fabric8's mock API server in CRUD mode: what kubectl does to pools, routes, objectives and pods
 * reaches the picker through real informers, and requests are routed through real ext_proc frames to real HTTP pods.
 */
@EnableKubernetesMockClient(crud = true)
class ClusterModeTest {
  static KubernetesClient client;
  static KubernetesMockServer server;
  static List<FakeModelServer> pods;

  @BeforeAll
  static void startPods() throws Exception {
    FakeModelServer first = new FakeModelServer("127.0.0.161", 0);
    pods = List.of(first, new FakeModelServer("127.0.0.162", first.port()),
        new FakeModelServer("127.0.0.163", first.port()));
    // the models the routes name are listed: a route no pod serves is answered by the EPP itself
    pods.forEach(p -> p.setModels("base-model", List.of("chat-lora", "chat-lora-v2", "batch-lora")));
  }

  @AfterAll
  static void stopPods() {
    pods.forEach(FakeModelServer::close);
  }

  @BeforeEach
  void calmPods() {
    pods.forEach(p -> p.setVllm(0, 0, 0.1, 4, List.of(), List.of()));
  }

  static String ip(int i) {
    return "127.0.0." + (161 + i);
  }

  static int port() {
    return pods.getFirst().port();
  }

  @Test
  void podsPoolsRoutesAndObjectivesReachThePickerAsKubectlChangesThem() throws Exception {
    FakeCluster k = new FakeCluster(client, "crud");
    k.pool("pool", "vllm", port());
    k.route("chat", "pool", "chat-lora", 0);
    k.pod("p0", "vllm", ip(0), true);
    k.pod("p1", "vllm", ip(1), true);
    k.pod("p2", "vllm", ip(2), false);
    try (ClusterEpp e = new ClusterEpp(client, "crud", "solo", false)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> e.epp.datastore().loaded());
      await().atMost(Duration.ofSeconds(10)).until(() -> e.route("chat-lora").startsWith("127.0.0.16"));
      assertThat(e.epp.datastore().topology().addresses())
          .as("an unready pod is not an endpoint")
          .containsExactlyInAnyOrder(ip(0) + ":" + port(), ip(1) + ":" + port());

      k.pod("p2", "vllm", ip(2), true);
      k.deletePod("p0");
      await().atMost(Duration.ofSeconds(5)).until(() -> e.epp.datastore().topology().addresses()
          .equals(java.util.Set.of(ip(1) + ":" + port(), ip(2) + ":" + port())));

      k.route("chat", "pool", "chat-lora-v2", 0);
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("chat-lora").equals("HTTP 404"));
      assertThat(e.route("chat-lora-v2")).startsWith("127.0.0.16");

      k.route("batch", "pool", "batch-lora", -1);
      await().atMost(Duration.ofSeconds(5)).until(() -> !e.route("batch-lora").startsWith("HTTP 404"));
      pods.forEach(p -> p.setVllm(10, 4, 0.5, 4, List.of(), List.of()));
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("batch-lora").equals("HTTP 429"));
      k.objective("urgent", "pool", 50);
      await().atMost(Duration.ofSeconds(5)).until(() -> e.epp.datastore().topology().objectivesByKey()
          .containsKey(new io.llmgw.api.ObjectiveKey("crud", "urgent")));
      assertThat(e.routeWithObjective("batch-lora", "urgent"))
          .as("the objective's priority lifts a sheddable route out of shedding").startsWith("127.0.0.16");
      k.delete(Kinds.OBJECTIVE, "urgent");
      // a deleted objective is unknown: named in a 400, not silently the route's sheddable priority
      await().atMost(Duration.ofSeconds(5))
          .until(() -> e.routeWithObjective("batch-lora", "urgent").equals("HTTP 400"));

      k.delete(Kinds.POOL, "pool");
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("chat-lora-v2").equals("HTTP 503"));
      k.delete(Kinds.ROUTE, "chat");
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("chat-lora-v2").equals("HTTP 404"));
    }
  }

  /** Issue 48: a namespace set up for llm-d's router (no LLMRoute) is served from llm-d's own kinds as they change. */
  @Test
  void llmdsObjectivesAndRewritesAreWatchedAndThePoolServesWhatItsPodsReport() throws Exception {
    FakeCluster k = new FakeCluster(client, "llmd");
    k.pool("pool", "vllm", port());
    k.pod("p0", "vllm", ip(0), true);
    try (ClusterEpp e = new ClusterEpp(client, "llmd", "solo", false)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> e.route("chat-lora").startsWith(ip(0)));
      assertThat(e.route("to-be-rewritten")).as("no pod reports it, no rewrite names it").isEqualTo("HTTP 404");
      k.apply(Kinds.LLMD_REWRITE, """
          apiVersion: llm-d.ai/v1alpha2
          kind: InferenceModelRewrite
          metadata: {name: rewrite}
          spec:
            poolRef: {name: pool}
            rules: [{matches: [{model: {value: to-be-rewritten}}], targets: [{modelRewrite: chat-lora}]}]
          """);
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("to-be-rewritten").startsWith(ip(0)));
      assertThat(e.routeWithObjective("chat-lora", "critical")).as("not yet created").isEqualTo("HTTP 400");
      k.apply(Kinds.LLMD_OBJECTIVE, """
          apiVersion: llm-d.ai/v1alpha2
          kind: InferenceObjective
          metadata: {name: critical}
          spec: {priority: 10, poolRef: {name: pool}}
          """);
      await().atMost(Duration.ofSeconds(5)).until(() -> e.routeWithObjective("chat-lora", "critical")
          .startsWith(ip(0)));
      k.delete(Kinds.LLMD_REWRITE, "rewrite");
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("to-be-rewritten").equals("HTTP 404"));
    }
  }

  @Test
  void aMissingCrdIsLoggedAndRetriedNeverFatalAndAnOptionalOneDoesNotHoldReadiness() throws Exception {
    FakeCluster k = new FakeCluster(client, "nocrd");
    k.pool("pool", "vllm", port());
    k.route("chat", "pool", "chat-lora", 0);
    k.pod("p0", "vllm", ip(0), true);
    String notFound = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\",\"code\":404}";
    server.expect().get()
        .withPath("/apis/inference.networking.x-k8s.io/v1alpha2/namespaces/nocrd/inferenceobjectives?resourceVersion=0")
        .andReturn(404, notFound).always();
    server.expect().get().withPath("/apis/inference.x-k8s.io/v1alpha1/namespaces/nocrd/llmroutes?resourceVersion=0")
        .andReturn(404, notFound).times(2);
    var logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
        "io.llmgw.extproc.control.cluster");
    var logs = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
    logs.start();
    logger.addAppender(logs);
    try (ClusterEpp e = new ClusterEpp(client, "nocrd", "solo", false)) {
      await().atMost(Duration.ofSeconds(5)).until(() -> messages(logs).contains("the LLMRoute CRD is not installed"));
      assertThat(e.epp.datastore().loaded()).as("not ready while routes cannot be listed").isFalse();
      await().atMost(Duration.ofSeconds(20)).until(() -> e.epp.datastore().loaded());
      // listed is not yet scraped: the pod is picked once its first metrics arrive, 50 ms later unless the machine is busy
      await().atMost(Duration.ofSeconds(5)).until(() -> e.route("chat-lora").startsWith(ip(0)));
      String log = messages(logs);
      assertThat(log).contains("the InferenceObjective CRD is not installed");
      assertThat(log.split("the LLMRoute CRD is not installed", -1)).as("one line per problem, not per retry")
          .hasSize(2);
    } finally {
      logger.detachAppender(logs);
    }
  }

  private static String messages(ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> a) {
    return String.join("\n",
        a.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList());
  }
}
