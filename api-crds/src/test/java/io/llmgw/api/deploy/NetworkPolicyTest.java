package io.llmgw.api.deploy;

import static io.llmgw.api.deploy.DeployManifestsTest.DEPLOY;
import static io.llmgw.api.deploy.DeployManifestsTest.documents;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The EPP's NetworkPolicy: the health port, which carries the replicas' exchange in plaintext, is open to the other
 * replicas only; every other port the EPP listens on, in every way deploy/ runs it, stays reachable.
 */
class NetworkPolicyTest {
  static JsonNode only(Path file) throws IOException {
    return documents(file).getFirst();
  }

  @Test
  void theHealthPortIsOpenToTheReplicasOnlyAndEveryOtherPortToAll() throws IOException {
    JsonNode policy = only(DEPLOY.resolve("epp/networkpolicy.yaml"));
    JsonNode deployment = only(DEPLOY.resolve("epp/deployment.yaml"));
    JsonNode podLabels = deployment.at("/spec/template/metadata/labels");
    assertThat(policy.at("/spec/podSelector/matchLabels")).as("it selects the EPP's pods").isEqualTo(podLabels);

    Set<String> toAll = new HashSet<>();
    Set<String> toReplicas = new HashSet<>();
    for (JsonNode rule : policy.at("/spec/ingress")) {
      Set<String> ports = new HashSet<>();
      rule.path("ports").forEach(p -> ports.add(p.path("port").asText()));
      if (rule.path("from").isMissingNode()) {
        toAll.addAll(ports);
      } else {
        assertThat(rule.path("from")).hasSize(1);
        assertThat(rule.at("/from/0/podSelector/matchLabels")).isEqualTo(podLabels);
        toReplicas.addAll(ports);
      }
    }
    assertThat(toReplicas).containsExactly("grpc-health");
    assertThat(toAll).doesNotContain("grpc-health");

    Set<String> listens = new HashSet<>();
    deployment.at("/spec/template/spec/containers/0/ports").forEach(p -> listens.add(p.path("name").asText()));
    assertThat(toAll).as("deploy/epp: every port but the health port").isEqualTo(minus(listens, "grpc-health"));
    // deploy/envoy adds the xDS port to the Deployment and, alike, to the policy
    JsonNode envoy = only(DEPLOY.resolve("envoy/kustomization.yaml"));
    Set<String> added = new HashSet<>();
    Set<String> opened = new HashSet<>();
    for (JsonNode patch : envoy.path("patches")) {
      for (JsonNode op : CrdSchemas.YAML.readTree(patch.path("patch").asText())) {
        String kind = patch.at("/target/kind").asText();
        if (kind.equals("Deployment") && op.path("path").asText().endsWith("/ports/-")) {
          added.add(op.at("/value/name").asText());
        } else if (kind.equals("NetworkPolicy") && op.path("path").asText().equals("/spec/ingress/0/ports/-")) {
          opened.add(op.at("/value/port").asText());
        }
      }
    }
    assertThat(added).containsExactly("xds");
    assertThat(opened).isEqualTo(added);
  }

  private static Set<String> minus(Set<String> all, String one) {
    Set<String> out = new HashSet<>(all);
    out.remove(one);
    return out;
  }
}
