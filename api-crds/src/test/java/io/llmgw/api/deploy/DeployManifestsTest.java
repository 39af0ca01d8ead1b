package io.llmgw.api.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.llmgw.api.ClusterObjects;
import io.llmgw.api.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Everything in {@code deploy/} and {@code examples/} is checked as a cluster would check it: every object parses into
 * its Kubernetes type without unknown fields, our kinds validate against the generated CRD schemas and pass the EPP's
 * own checks, every kustomization names exactly its directory's files, and the RBAC role allows what the EPP does.
 */
class DeployManifestsTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path DEPLOY = ROOT.resolve("deploy");
  static final KubernetesSerialization K8S = new KubernetesSerialization();
  static CrdSchemas schemas;

  @BeforeAll
  static void loadSchemas() throws IOException {
    schemas = new CrdSchemas(DEPLOY.resolve("crds"));
  }

  static List<Path> yamlFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .filter(p -> !p.getParent().getFileName().toString().equals("install")).sorted().toList();
    }
  }

  static List<JsonNode> documents(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it = CrdSchemas.YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNextValue()) {
        JsonNode n = it.nextValue();
        if (n != null && n.isObject() && !n.isEmpty()) {
          out.add(n);
        }
      }
    }
    return out;
  }

  /** Issue 13, item 1: an EPP that hit OutOfMemoryError answered 503 to everything while its health said SERVING. */
  @Test
  void item1TheImageAndTheLauncherExitOnOutOfMemorySoTheOrchestratorRestartsTheEpp() throws IOException {
    assertThat(Files.readString(DEPLOY.resolve("Dockerfile"))).contains("-XX:+ExitOnOutOfMemoryError");
    assertThat(Files.readString(ROOT.resolve("llmgw"))).contains("-XX:+ExitOnOutOfMemoryError");
  }

  /** Issue 16: the image builds the jar inside (no JDK or Maven on the host) and runs it as a non-root user. */
  @Test
  void theImageBuildsTheJarFromTheSourcesInAStageOfItsOwn() throws IOException {
    List<String> lines = Files.readAllLines(DEPLOY.resolve("Dockerfile"));
    List<String> from = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
    assertThat(from).hasSize(2);
    assertThat(from.getFirst()).contains("maven:", "temurin-25", " AS build");
    assertThat(from.getLast()).contains("temurin:25-jre");
    assertThat(lines).anyMatch(l -> l.startsWith("RUN ") && l.contains("mvn ") && l.contains("-pl cli -am package"))
        .anyMatch(l -> l.equals("COPY --from=build /src/cli/target/llmgw.jar /opt/llmgw/llmgw.jar"))
        .anyMatch(l -> l.startsWith("USER 65532"));
    assertThat(Files.readString(ROOT.resolve(".dockerignore"))).as("nothing built on the host goes in")
        .contains("**/target");
  }

  /** Issue 51: a replica that sees an eighth of a fleet's requests compiled its request path minutes late. */
  @Test
  void theImageRecordsItsAotCacheFromRoutingWithItsOwnJvmAndStartsFromIt() throws IOException {
    String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
    String runtimeStage = dockerfile.substring(dockerfile.lastIndexOf("FROM "));
    assertThat(runtimeStage).as("recorded by the runtime image's JVM, which must be the one that maps it")
        .contains("-XX:AOTCacheOutput=/opt/llmgw/llmgw.aot", "io.llmgw.cli.ClassArchiveTraining", "--serve");
    assertThat(runtimeStage.substring(runtimeStage.indexOf("ENTRYPOINT")))
        .contains("-XX:AOTCache=/opt/llmgw/llmgw.aot");
  }

  @Test
  void theGeneratedCrdsDeclareOurFourKinds() {
    for (String kind : List.of("inference.x-k8s.io/v1alpha1 LLMRoute", "inference.networking.k8s.io/v1 InferencePool",
        "inference.networking.x-k8s.io/v1alpha2 InferenceObjective", "inference.x-k8s.io/v1alpha1 TenantBudget")) {
      String[] parts = kind.split(" ");
      assertThat(schemas.knows(CrdSchemas.YAML.createObjectNode().put("apiVersion", parts[0]).put("kind", parts[1])))
          .as(kind).isTrue();
    }
  }

  @Test
  void everyManifestParsesIntoItsKubernetesTypeWithoutUnknownFields() throws IOException {
    int objects = 0;
    for (Path file : yamlFiles(DEPLOY)) {
      for (JsonNode doc : documents(file)) {
        String where = ROOT.relativize(file) + " " + doc.path("kind").asText();
        if (doc.path("kind").asText().equals("Kustomization")
            || doc.path("kind").asText().equals("CustomResourceDefinition")) {
          continue;
        }
        HasMetadata object = K8S.unmarshal(doc.toString(), HasMetadata.class);
        assertThat(object.getMetadata().getName()).as(where).isNotBlank();
        if (!(object instanceof GenericKubernetesResource)) {
          assertThat(UnknownFields.in(object)).as(where + ": fields its type does not have").isEmpty();
        }
        objects++;
      }
    }
    assertThat(objects).isGreaterThan(15);
  }

  @Test
  void ourObjectsInDeployAndExamplesValidateAgainstTheCrdsAndPassTheEppsChecks() throws Exception {
    int checked = 0;
    List<Path> files = new ArrayList<>(yamlFiles(DEPLOY));
    files.addAll(yamlFiles(ROOT.resolve("examples")));
    for (Path file : files) {
      for (JsonNode doc : documents(file)) {
        if (!schemas.knows(doc)) {
          continue;
        }
        String where = ROOT.relativize(file) + " " + doc.path("kind").asText() + " "
            + doc.at("/metadata/name").asText();
        assertThat(schemas.validate(doc)).as(where).isEmpty();
        parseAsTheEppDoes(doc);
        checked++;
      }
    }
    assertThat(checked).isGreaterThanOrEqualTo(15);
  }

  private static void parseAsTheEppDoes(JsonNode doc) throws ConfigException {
    switch (doc.path("kind").asText()) {
      case "LLMRoute" -> ClusterObjects.route(doc);
      case "InferencePool" -> ClusterObjects.pool(doc);
      case "TenantBudget" -> ClusterObjects.budget(doc);
      default -> ClusterObjects.objective(doc);
    }
  }

  static final String ROUTE = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: r}
      spec:
        backendRefs: [{name: pool}]
        adapter:
          name: sql-lora
          priority: 5
          objectives: [{type: OutputTokenLatency, latency: {value: 2s, quantile: {numerator: 99}}}]
          targets: [{name: v1, weight: 90}, {name: v2, weight: 10}]
      """;

  @ParameterizedTest
  @ValueSource(strings = {"weight: 90|weight: 0", "weight: 10|weight: 1000001", "priority: 5|priority: 2000000",
      "value: 2s|value: 2 seconds", "backendRefs: [{name: pool}]|backendRefs: []", "priority: 5|priorty: 5",
      "type: OutputTokenLatency|type: Throughput", "name: pool|name: Pool_1", "numerator: 99|numerator: 0"})
  void theSchemaRejectsWhatTheEppWouldRejectToo(String edit) throws IOException {
    String[] parts = edit.split("\\|");
    JsonNode bad = CrdSchemas.YAML.readTree(ROUTE.replace(parts[0], parts[1]));
    assertThat(schemas.validate(CrdSchemas.YAML.readTree(ROUTE))).isEmpty();
    assertThat(schemas.validate(bad)).as(edit).isNotEmpty();
    boolean eppRejects;
    try {
      ClusterObjects.route(bad);
      eppRejects = false;
    } catch (ConfigException e) {
      eppRejects = true;
    }
    assertThat(eppRejects).as("file mode and the informers reject " + edit + " as well").isTrue();
  }

  @Test
  void everyKustomizationListsExactlyTheManifestsBesideIt() throws IOException {
    for (Path k : yamlFiles(DEPLOY).stream().filter(p -> p.getFileName().toString().equals("kustomization.yaml"))
        .toList()) {
      Set<String> listed = new TreeSet<>();
      for (JsonNode r : documents(k).getFirst().path("resources")) {
        Path target = k.getParent().resolve(r.asText()).normalize();
        assertThat(target).as(ROOT.relativize(k) + " names " + r.asText()).exists();
        if (!Files.isDirectory(target)) {
          listed.add(r.asText());
        }
      }
      Set<String> present = new TreeSet<>();
      try (Stream<Path> files = Files.list(k.getParent())) {
        files.map(p -> p.getFileName().toString())
            .filter(n -> (n.endsWith(".yaml") || n.endsWith(".yml")) && !n.equals("kustomization.yaml"))
            .forEach(present::add);
      }
      assertThat(listed).as(ROOT.relativize(k).toString()).isEqualTo(present);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"crds", "epp", "sim", "vllm", "gateway", "monitoring", "envoy", "tls", "batch",
      "autoscaling/hpa", "autoscaling/keda", "options/single-epp", "options/plaintext", "options/flow-control",
      "options/gateway-vllm", "options/tenants", "options/apply-capacity-plan"})
  void kubectlRendersEachKustomization(String dir) throws Exception {
    assumeTrue(onPath("kubectl"), "kubectl is not installed");
    Process p = new ProcessBuilder("kubectl", "kustomize", DEPLOY.resolve(dir).toString()).redirectErrorStream(true)
        .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("kind:");
  }

  /** Issue 31: Envoy Gateway removes a client's tenant header before any filter could read it. */
  @Test
  void envoyGatewayRemovesAClientsTenantHeaderEarly() throws IOException {
    JsonNode policy = documents(DEPLOY.resolve("gateway/tenant-header.yaml")).getFirst();
    assertThat(policy.path("kind").asText()).isEqualTo("ClientTrafficPolicy");
    assertThat(policy.at("/spec/headers/earlyRequestHeaders/remove").toString()).contains("x-llmgw-tenant")
        .as("only the EPP names a prefill pod").contains("x-prefiller-host-port");
    assertThat(policy.at("/spec/targetRefs/0/name").asText()).isEqualTo("llm-gateway");
    assertThat(Files.readString(DEPLOY.resolve("gateway/kustomization.yaml"))).contains("tenant-header.yaml");
  }

  @Test
  void theRoleAllowsWhatTheEppDoesAndNothingClusterWide() throws IOException {
    Role role = K8S.unmarshal(Files.readString(DEPLOY.resolve("epp/rbac.yaml")).split("\n---\n")[0], Role.class);
    List<String> grants = new ArrayList<>();
    for (PolicyRule r : role.getRules()) {
      for (String group : r.getApiGroups()) {
        for (String resource : r.getResources()) {
          grants.add(group + "/" + resource + " " + String.join(",", new TreeSet<>(r.getVerbs())));
        }
      }
    }
    assertThat(grants).containsExactlyInAnyOrder(
        "/pods get,list,watch",
        "discovery.k8s.io/endpointslices list,watch",
        "inference.networking.k8s.io/inferencepools get,list,watch",
        "inference.networking.x-k8s.io/inferenceobjectives get,list,watch",
        "llm-d.ai/inferenceobjectives get,list,watch",
        "llm-d.ai/inferencemodelrewrites get,list,watch",
        "inference.x-k8s.io/llmroutes get,list,watch",
        "inference.x-k8s.io/tenantbudgets get,list,watch",
        "inference.x-k8s.io/llmroutes/status get,patch,update",
        "coordination.k8s.io/leases create,get,update");
  }

  @Test
  void theEppDeploymentProbesTheGrpcHealthPortAndRunsClusterMode() throws IOException {
    Deployment d = K8S.unmarshal(Files.readString(DEPLOY.resolve("epp/deployment.yaml")), Deployment.class);
    var c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
    assertThat(c.getArgs()).containsExactly("serve", "--kubernetes", "--peers-service", "llmgw-epp",
        "--peers-secret-file", "/etc/llmgw/peers/secret");
    // issue 47: the peers' shared secret is a Secret mounted where the flag reads it
    assertThat(c.getVolumeMounts()).anySatisfy(m -> {
      assertThat(m.getMountPath()).isEqualTo("/etc/llmgw/peers");
      assertThat(d.getSpec().getTemplate().getSpec().getVolumes()).anySatisfy(v -> {
        assertThat(v.getName()).isEqualTo(m.getName());
        assertThat(v.getSecret().getSecretName()).isEqualTo("llmgw-epp-peers");
      });
    });
    assertThat(c.getReadinessProbe().getGrpc().getPort()).isEqualTo(9003);
    assertThat(c.getReadinessProbe().getGrpc().getService()).isEqualTo("readiness");
    assertThat(c.getLivenessProbe().getGrpc().getService()).isEqualTo("liveness");
    assertThat(d.getSpec().getTemplate().getMetadata().getAnnotations()).containsEntry("prometheus.io/port", "9090");
  }

  /**
   * Issue 15: in the mutual-TLS overlay every certificate file a flag names lies under a mount of the same Deployment,
   * and every mounted Secret is one a cert-manager Certificate writes.
   */
  @Test
  void theTlsOverlayMountsEveryFileItsFlagsNameFromSecretsCertManagerWrites() throws IOException {
    JsonNode k = documents(DEPLOY.resolve("tls/kustomization.yaml")).getFirst();
    Set<String> secrets = new TreeSet<>();
    for (JsonNode doc : documents(DEPLOY.resolve("tls/certificates.yaml"))) {
      if (doc.path("kind").asText().equals("Certificate")) {
        secrets.add(doc.path("spec").path("secretName").asText());
      }
    }
    int files = 0;
    for (JsonNode patch : k.path("patches")) {
      List<String> mounts = new ArrayList<>();
      List<String> flagged = new ArrayList<>();
      for (JsonNode op : CrdSchemas.YAML.readTree(patch.path("patch").asText())) {
        JsonNode v = op.path("value");
        if (op.path("path").asText().endsWith("/volumeMounts/-")) {
          mounts.add(v.path("mountPath").asText() + "/");
        } else if (op.path("path").asText().endsWith("/volumes/-")) {
          assertThat(secrets).contains(v.path("secret").path("secretName").asText());
        } else if (v.isTextual() && v.asText().matches("--[a-z-]+-file=/.*")) {
          flagged.add(v.asText().substring(v.asText().indexOf('=') + 1));
        }
      }
      for (String f : flagged) {
        if (patch.path("target").path("name").asText().equals("llmgw-epp") && f.contains("/envoy-tls/")) {
          continue; // paths in Envoy's container, which the EPP serves over xDS and never opens itself
        }
        assertThat(mounts).as(f).anyMatch(f::startsWith);
        files++;
      }
    }
    assertThat(files).isEqualTo(4);
  }

  /**
   * Issue 16, item 5: the gateway's HTTPRoute, as {@code deploy/gateway} and {@code options/gateway-vllm} make it,
   * names the InferencePool its model servers' directory defines, and that pool names the EPP's Service and ext_proc
   * port. A newcomer who applies the vLLM pool with the simulator's route gets a gateway that routes nowhere.
   */
  @ParameterizedTest
  @ValueSource(strings = {"gateway:sim", "options/gateway-vllm:vllm"})
  void theGatewaysRouteReachesThePoolOfItsModelServersAndThePoolTheEpp(String pair) throws IOException {
    String[] dirs = pair.split(":");
    JsonNode route = documents(DEPLOY.resolve("gateway/httproute.yaml")).getFirst().deepCopy();
    if (!dirs[0].equals("gateway")) {
      for (JsonNode patch : documents(DEPLOY.resolve(dirs[0]).resolve("kustomization.yaml")).getFirst()
          .path("patches")) {
        assertThat(patch.at("/target/kind").asText()).isEqualTo("HTTPRoute");
        for (JsonNode op : CrdSchemas.YAML.readTree(patch.path("patch").asText())) {
          assertThat(op.path("op").asText()).isEqualTo("replace");
          assertThat(route.at(op.path("path").asText()).isMissingNode()).as(op.toString()).isFalse();
          JsonPatches.replace(route, op.path("path").asText(), op.path("value"));
        }
      }
    }
    JsonNode backend = route.at("/spec/rules/0/backendRefs/0");
    assertThat(backend.path("group").asText()).isEqualTo("inference.networking.k8s.io");
    assertThat(backend.path("kind").asText()).isEqualTo("InferencePool");
    JsonNode pool = documents(DEPLOY.resolve(dirs[1]).resolve("pool.yaml")).getFirst();
    assertThat(pool.at("/metadata/name").asText()).isEqualTo(backend.path("name").asText());
    JsonNode service = documents(DEPLOY.resolve("epp/service.yaml")).getFirst();
    assertThat(pool.at("/spec/endpointPickerRef/name").asText()).isEqualTo(service.at("/metadata/name").asText());
    assertThat(pool.at("/spec/endpointPickerRef/port/number").asInt()).isEqualTo(9002);
    assertThat(service.at("/spec/ports").findValuesAsText("port")).contains("9002");
  }

  /**
   * Issue 16, item 5: Envoy AI Gateway always dials the EPP over TLS, without verifying it; the EPP serves TLS in
   * cluster mode unless told not to. So the bases a gateway uses must not turn it off, and the values that let Envoy
   * Gateway accept an InferencePool backend name the v1 kind and Envoy AI Gateway's controller.
   */
  @Test
  void theGatewayPathKeepsTlsOnAndEnvoyGatewayAcceptsInferencePoolBackends() throws IOException {
    for (String dir : List.of("epp", "options/single-epp", "options/flow-control", "options/tenants")) {
      assertThat(
          Files.readString(DEPLOY.resolve(dir).resolve(dir.equals("epp") ? "deployment.yaml" : "kustomization.yaml")))
          .as(dir).doesNotContain("--no-tls");
    }
    JsonNode values = documents(DEPLOY.resolve("gateway/install/envoy-gateway-values.yaml")).getFirst();
    JsonNode manager = values.at("/config/envoyGateway/extensionManager");
    assertThat(manager.path("backendResources").toString())
        .contains("\"group\":\"inference.networking.k8s.io\"", "\"kind\":\"InferencePool\"", "\"version\":\"v1\"");
    assertThat(manager.at("/service/fqdn/hostname").asText())
        .isEqualTo("ai-gateway-controller.envoy-ai-gateway-system.svc.cluster.local");
    assertThat(manager.at("/hooks/xdsTranslator/post").toString()).contains("Cluster", "Route", "Translation");
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
