package io.llmgw.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.llmgw.bench.load.Rig;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.MountableFile;

/**
 * The production data plane: a real Envoy (container, host network) with {@code envoy-config/envoy.yaml}, ports
 * rewritten to this test's EPP, in front of simulated pods. Runs where Docker is present; skipped elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class RealEnvoyTest {
  static final String IMAGE = "envoyproxy/envoy:v1.34-latest";

  @Test
  void theSdkGoesThroughEnvoyAndTheEppToAPod() throws Exception {
    try (Rig rig = Gateways.start("127.0.0.141", 2, false)) {
      int listener = freePort();
      String bootstrap = Files.readString(Path.of("..", "envoy-config", "envoy.yaml"))
          .replace("port_value: 8080", "port_value: " + listener)
          .replace("port_value: 19000", "port_value: " + freePort())
          .replace("port_value: 9002", "port_value: " + rig.epp().grpcPort())
          .replace("port_value: 9003", "port_value: " + rig.epp().healthPort());
      Path file = Files.createTempFile("envoy", ".yaml");
      Files.writeString(file, bootstrap);
      try (GenericContainer<?> envoy = new GenericContainer<>(IMAGE)
          .withNetworkMode("host")
          .withCopyFileToContainer(MountableFile.forHostPath(file), "/etc/envoy/envoy.yaml")
          .withCommand("envoy", "-c", "/etc/envoy/envoy.yaml", "--log-level", "warn")) {
        // host networking exposes no ports to wait on: the first successful call below is the readiness check
        envoy.start();
        OpenAIClient client = Gateways.client(listener);
        try {
          ChatCompletion c = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
              .ignoreExceptions().until(() -> client.chat().completions().create(ChatCompletionCreateParams
                  .builder().model("sql-lora").addUserMessage("hi").maxCompletionTokens(4).build()), r -> true);
          assertThat(c.model()).isEqualTo("sql-lora");
          assertThat(c.usage().orElseThrow().completionTokens()).isEqualTo(4);
        } finally {
          client.close();
        }
      }
    }
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
