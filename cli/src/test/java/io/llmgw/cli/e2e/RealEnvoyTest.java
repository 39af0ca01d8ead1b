package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.envoy.xds.XdsServer;
import io.llmgw.envoy.xds.XdsSettings;
import io.llmgw.loadgen.Rig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.MountableFile;

/**
 * The production data plane: a real Envoy (container, host network) in front of simulated pods, configured either by
 * {@code envoy-config/envoy.yaml} (ports rewritten to this test's EPP) or only over xDS from the EPP's xDS server with
 * {@code envoy-config/envoy-xds.yaml}. Runs where Docker is present; skipped elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class RealEnvoyTest {
  static final String IMAGE = "envoyproxy/envoy:v1.34-latest";

  @Test
  void theSdkGoesThroughEnvoyAndTheEppToAPod() throws Exception {
    try (Rig rig = Gateways.start("127.0.0.141", 2, false)) {
      int listener = LoopbackPorts.free();
      String bootstrap = Files.readString(Path.of("..", "envoy-config", "envoy.yaml"))
          .replace("port_value: 8080", "port_value: " + listener)
          .replace("port_value: 19000", "port_value: " + LoopbackPorts.free())
          .replace("port_value: 9002", "port_value: " + rig.epp().grpcPort())
          .replace("port_value: 9012", "port_value: " + LoopbackPorts.free()); // a second replica that is down
      try (GenericContainer<?> envoy = startEnvoy(bootstrap)) {
        ChatCompletion c = askThrough(listener);
        assertThat(c.model()).isEqualTo("sql-lora");
        assertThat(c.usage().orElseThrow().completionTokens()).isEqualTo(4);
      }
    }
  }

  @Test
  void envoyConfiguredOnlyOverXdsRoutesThroughThePoolsClusterOfTheMatchedRoute() throws Exception {
    try (Rig rig = Gateways.start("127.0.0.145", 2, false)) {
      int listener = LoopbackPorts.free();
      int admin = LoopbackPorts.free();
      try (XdsServer xds = XdsServer.start("127.0.0.1", 0, new XdsSettings("127.0.0.1", listener, "127.0.0.1",
          rig.epp().grpcPort()))) {
        xds.update(rig.epp().datastore().topology().config());
        String bootstrap = Files.readString(Path.of("..", "envoy-config", "envoy-xds.yaml"))
            .replace("port_value: 19000", "port_value: " + admin)
            .replace("port_value: 18000", "port_value: " + xds.port());
        try (GenericContainer<?> envoy = startEnvoy(bootstrap)) {
          assertThat(askThrough(listener).model()).isEqualTo("sql-lora");
          var stats = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + admin + "/stats?filter=pool/")).build(),
              java.net.http.HttpResponse.BodyHandlers.ofString()).body();
          assertThat(stats).as("the request went through its pool's cluster, chosen by x-llmgw-route")
              .containsPattern("cluster\\.pool/default/[a-z-]+\\.upstream_rq_total: [1-9]");
        }
      }
    }
  }

  /** Envoy with this bootstrap, on the host network (so it reaches the loopback EPP and pods). */
  static GenericContainer<?> startEnvoy(String bootstrap) throws Exception {
    Path file = Files.createTempFile("envoy", ".yaml");
    Files.writeString(file, bootstrap);
    GenericContainer<?> envoy = new GenericContainer<>(IMAGE)
        .withNetworkMode("host")
        .withCopyFileToContainer(MountableFile.forHostPath(file), "/etc/envoy/envoy.yaml")
        .withCommand("envoy", "-c", "/etc/envoy/envoy.yaml", "--log-level", "warn");
    envoy.start();
    return envoy;
  }

  /** One chat completion through Envoy; host networking exposes no ports to wait on, so the first success is readiness. */
  static ChatCompletion askThrough(int listener) {
    OpenAIClient client = Gateways.client(listener);
    try {
      return org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).ignoreExceptions()
          .until(() -> client.chat().completions().create(ChatCompletionCreateParams.builder().model("sql-lora")
              .addUserMessage("hi").maxCompletionTokens(4).build()), r -> true);
    } finally {
      client.close();
    }
  }

}
