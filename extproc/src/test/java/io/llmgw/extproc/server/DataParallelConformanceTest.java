package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static io.llmgw.extproc.server.ExtProcCall.requestHeaders;
import static io.llmgw.extproc.server.ExtProcCall.setHeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.scraper.FakeModelServer;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 48: GIE's conformance case GatewayFollowingEPPRoutingWithDataParallelism (tag conformance/v1.6.0), restated
 * against a real EPP over real ext_proc frames: three pods, each with three data-parallel ranks on the pool's three
 * target ports, every rank an endpoint; the test hook {@code test-epp-endpoint-selection} names a pod by IP (any rank)
 * or IP:port (that rank), and every pick stays inside what it names. Then llm-d's {@code llm-d.ai/active-ports}: a rank
 * the pod does not list is no endpoint. Pods at 127.0.0.{91,92,93}.
 */
class DataParallelConformanceTest {
  static final int RANKS = 3;
  static final int REQUESTS_PER_CASE = 24;
  static final List<List<FakeModelServer>> pods = new ArrayList<>();
  static final List<Integer> ports = new ArrayList<>();
  static Path config;
  static Epp epp;
  static ManagedChannel channel;
  static ExternalProcessorGrpc.ExternalProcessorStub stub;

  static String ip(int pod) {
    return "127.0.0." + (91 + pod);
  }

  @BeforeAll
  static void start() throws Exception {
    for (int pod = 0; pod < 3; pod++) {
      pods.add(new ArrayList<>());
    }
    // one port for every rank on every pod: bound on the first pod, then taken on the others (retried if in use)
    while (ports.size() < RANKS) {
      FakeModelServer first = new FakeModelServer(ip(0), 0);
      List<FakeModelServer> rank = new ArrayList<>(List.of(first));
      try {
        for (int pod = 1; pod < 3; pod++) {
          rank.add(new FakeModelServer(ip(pod), first.port()));
        }
      } catch (BindException taken) {
        rank.forEach(FakeModelServer::close);
        continue;
      }
      ports.add(first.port());
      for (int pod = 0; pod < 3; pod++) {
        rank.get(pod).setModels("base-model", List.of());
        pods.get(pod).add(rank.get(pod));
      }
    }
    StringBuilder yaml = new StringBuilder(FileModeYaml.route("base", "dp-pool", "base-model", 0))
        .append(FileModeYaml.SEPARATOR).append("""
            apiVersion: inference.networking.k8s.io/v1
            kind: InferencePool
            metadata: {name: dp-pool}
            spec: {selector: {matchLabels: {app: dp}}, targetPorts: [{number: %d}, {number: %d}, {number: %d}]}
            """.formatted(ports.get(0), ports.get(1), ports.get(2)));
    for (int pod = 0; pod < 3; pod++) {
      yaml.append(FileModeYaml.SEPARATOR).append(FileModeYaml.pod("dp-" + pod, "dp", ip(pod)));
    }
    // a fourth pod at .94 whose annotation lists two ranks (one twice, with a stray entry): the third is no endpoint
    yaml.append(FileModeYaml.SEPARATOR).append("""
        apiVersion: v1
        kind: Pod
        metadata:
          name: dp-annotated
          labels: {app: dp}
          annotations: {llm-d.ai/active-ports: "%d, %d,%d,not-a-port"}
        status: {podIP: 127.0.0.94, phase: Running, conditions: [{type: Ready, status: "True"}]}
        """.formatted(ports.get(0), ports.get(2), ports.get(0)));
    config = Files.createTempFile("llmgw-dp", ".yaml");
    Files.writeString(config, yaml);
    epp = Epp.start(EppSettings.defaults(config).onLoopbackEphemeralPorts()
        .withRequests(EppSettings.defaults(config).requests().withHooks(new WireHooks(false, true))),
        Clock.systemUTC());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", epp.grpcPort()).usePlaintext().build();
    stub = ExternalProcessorGrpc.newStub(channel);
    await().atMost(Duration.ofSeconds(10)).until(() -> pods.stream().flatMap(List::stream)
        .allMatch(p -> epp.datastore().scrapeState(p.address()).healthy()));
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow();
    epp.close();
    pods.stream().flatMap(List::stream).forEach(FakeModelServer::close);
    Files.deleteIfExists(config);
  }

  private static String route(String selection) throws Exception {
    ExtProcCall call = ExtProcCall.open(stub);
    call.send(requestHeaders(Map.of(":method", "POST", ":path", "/v1/completions", EppProtocol.TEST_ENDPOINT_SELECTION,
        selection), false, BodySendMode.FULL_DUPLEX_STREAMED, null));
    call.send(requestBody("{\"model\":\"base-model\",\"prompt\":\"Write as if you were a critic: San Francisco\"}",
        true));
    String destination = setHeader(call.next(), EppProtocol.DESTINATION);
    call.cancel();
    return destination;
  }

  /** Routes {@code REQUESTS_PER_CASE} requests with one selection; every pick must be one of {@code allowed}. */
  private static Set<String> picks(String selection, Set<String> allowed) throws Exception {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < REQUESTS_PER_CASE; i++) {
      String d = route(selection);
      assertThat(allowed).as(selection).contains(d);
      seen.add(d);
    }
    return seen;
  }

  private static Set<String> ranks(int pod, int... rankIndexes) {
    Set<String> out = new HashSet<>();
    if (rankIndexes.length == 0) {
      ports.forEach(p -> out.add(ip(pod) + ":" + p));
    }
    for (int r : rankIndexes) {
      out.add(ip(pod) + ":" + ports.get(r));
    }
    return out;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  @Test
  void everyRankIsAnEndpointAndAnIpAloneAllowsAnyOfItsRanks() throws Exception {
    for (int pod = 0; pod < 3; pod++) {
      picks(ip(pod), ranks(pod));
    }
  }

  @Test
  void twoPodsOneOfThemAtAFixedRank() throws Exception {
    picks(ip(0) + "," + ip(2) + ":" + ports.get(1), union(ranks(0), ranks(2, 1)));
  }

  @Test
  void allPodsOneRestrictedToTwoRanks() throws Exception {
    String selection = ip(0) + "," + ip(1) + ":" + ports.get(0) + "," + ip(1) + ":" + ports.get(2) + "," + ip(2);
    picks(selection, union(union(ranks(0), ranks(1, 0, 2)), ranks(2)));
  }

  @Test
  void aRankTheActivePortsAnnotationLeavesOutIsNoEndpoint() {
    assertThat(epp.datastore().topology().addresses()).filteredOn(a -> a.startsWith("127.0.0.94:"))
        .containsExactlyInAnyOrder("127.0.0.94:" + ports.get(0), "127.0.0.94:" + ports.get(2));
    assertThat(epp.datastore().topology().addresses()).hasSize(3 * RANKS + 2);
  }
}
