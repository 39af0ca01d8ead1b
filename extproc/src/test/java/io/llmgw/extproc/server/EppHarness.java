package io.llmgw.extproc.server;

import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.scraper.FakeModelServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** A real EPP (file mode, ephemeral loopback ports) over real HTTP pods at 127.0.0.N, and a gRPC client to it. */
final class EppHarness implements AutoCloseable {
  static final String ROUTES = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: base}
      spec: {backendRefs: [{name: sim-pool}], adapter: {name: base-model, priority: 0}}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: route-a}
      spec: {backendRefs: [{name: sim-pool}], adapter: {name: adapter-a, priority: 5}}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: batch}
      spec: {backendRefs: [{name: sim-pool}], adapter: {name: shed-me, priority: -1}}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: split}
      spec:
        backendRefs: [{name: sim-pool}]
        adapter: {name: split, targets: [{name: split-v1, weight: 1}]}
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: orphan}
      spec: {backendRefs: [{name: empty-pool}], adapter: {name: orphan-model}}
      ---
      apiVersion: inference.networking.k8s.io/v1
      kind: InferencePool
      metadata: {name: empty-pool}
      spec: {selector: {matchLabels: {app: nobody}}, targetPorts: [{number: 9}]}
      """;

  final List<FakeModelServer> pods = new ArrayList<>();
  final Path configFile;
  final Epp epp;
  final ManagedChannel channel;
  final ExternalProcessorGrpc.ExternalProcessorStub stub;

  /** Each pod's {@code llm-d.ai/role} label, by index; empty: none. */
  private final List<String> roles;

  EppHarness(int podCount, int firstIp, UnaryOperator<EppSettings> tweak) throws Exception {
    this(podCount, firstIp, "", tweak);
  }

  /** @param extraDocs more documents for the file (TenantBudgets, say), each starting with its own separator */
  EppHarness(int podCount, int firstIp, String extraDocs, UnaryOperator<EppSettings> tweak) throws Exception {
    this(podCount, firstIp, extraDocs, List.of(), tweak);
  }

  /** @param roles each pod's role label in disaggregated serving, by index (prefill, decode, both) */
  EppHarness(int podCount, int firstIp, String extraDocs, List<String> roles, UnaryOperator<EppSettings> tweak)
      throws Exception {
    this(podCount, firstIp, ROUTES, extraDocs, roles, tweak);
  }

  /** @param routes the file's routes (instead of {@link #ROUTES}; empty: none), each document ending its own */
  EppHarness(int podCount, int firstIp, String routes, String extraDocs, List<String> roles,
      UnaryOperator<EppSettings> tweak) throws Exception {
    this.roles = roles;
    FakeModelServer first = new FakeModelServer("127.0.0." + firstIp, 0);
    pods.add(first);
    for (int i = 1; i < podCount; i++) {
      pods.add(new FakeModelServer("127.0.0." + (firstIp + i), first.port()));
    }
    for (FakeModelServer p : pods) {
      p.setModels("base-model", List.of("adapter-a", "split-v1", "shed-me"));
    }
    configFile = Files.createTempFile("llmgw-test", ".yaml");
    Files.writeString(configFile, yaml(routes) + extraDocs);
    EppSettings settings = tweak.apply(EppSettings.defaults(configFile).onLoopbackEphemeralPorts());
    epp = Epp.start(settings, Clock.systemUTC());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", epp.grpcPort()).usePlaintext().build();
    stub = ExternalProcessorGrpc.newStub(channel);
    awaitFreshModels();
  }

  String yaml(String routes) {
    StringBuilder sb = new StringBuilder(routes).append(routes.isEmpty() ? "" : FileModeYaml.SEPARATOR)
        .append(FileModeYaml.pool("sim-pool", "sim", pods.getFirst().port()));
    for (int i = 0; i < pods.size(); i++) {
      sb.append(FileModeYaml.SEPARATOR)
          .append(FileModeYaml.pod("pod-" + i, "sim", pods.get(i).address().split(":")[0],
              i < roles.size() ? roles.get(i) : null));
    }
    return sb.toString();
  }

  /** Waits (bounded) until every pod has been scraped with its model list. */
  void awaitFreshModels() {
    await().atMost(Duration.ofSeconds(10)).until(() -> pods.stream().allMatch(p -> {
      var s = epp.datastore().scrapeState(p.address());
      return s.healthy() && !s.metrics().baseModels().isEmpty();
    }));
  }

  /** Waits until every pod's scraped waiting queue equals {@code queue}. */
  void awaitQueue(int queue) {
    await().atMost(Duration.ofSeconds(10)).until(() -> pods.stream()
        .allMatch(p -> epp.datastore().scrapeState(p.address()).metrics().waitingQueue() == queue));
  }

  int inFlight(String address) {
    return epp.datastore().inFlight().load(address).total();
  }

  ExtProcCall open() {
    return ExtProcCall.open(stub);
  }

  String metricsText() throws IOException, InterruptedException {
    return metricsPort("/metrics");
  }

  /** What the metrics port answers at {@code path}. */
  String metricsPort(String path) throws IOException, InterruptedException {
    var client = java.net.http.HttpClient.newHttpClient();
    var req = java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + epp.metricsPort() + path)).build();
    return client.send(req, java.net.http.HttpResponse.BodyHandlers.ofString()).body();
  }

  @Override
  public void close() throws IOException {
    channel.shutdownNow();
    epp.close();
    pods.forEach(FakeModelServer::close);
    Files.deleteIfExists(configFile);
  }
}
