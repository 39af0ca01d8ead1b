package io.llmgw.envoy.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.llmgw.envoy.EnvoyBootstrap;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The Envoy that deploy/envoy runs in a cluster boots exactly like envoy-xds.yaml, only its xDS address differs. */
class DeployedEnvoyTest {
  @Test
  void theClusterBootstrapIsTheXdsBootstrapPointedAtTheEppsHeadlessService() throws Exception {
    String inCluster = null;
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    try (MappingIterator<JsonNode> docs = yaml.readerFor(JsonNode.class)
        .readValues(Path.of("..", "deploy", "envoy", "envoy.yaml").toFile())) {
      while (docs.hasNextValue()) {
        JsonNode doc = docs.nextValue();
        if (doc.path("kind").asText().equals("ConfigMap")) {
          inCluster = doc.at("/data/envoy.yaml").asText();
        }
      }
    }
    assertThat(inCluster).isNotNull();
    String local = Files.readString(Path.of("envoy-xds.yaml"))
        .replace("socket_address: {address: 127.0.0.1, port_value: 18000}",
            "socket_address: {address: llmgw-epp-headless, port_value: 18000}");
    assertThat(EnvoyBootstrap.parse(inCluster)).isEqualTo(EnvoyBootstrap.parse(local));
  }
}
