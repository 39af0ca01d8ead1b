package io.llmgw.extproc.server;

import static io.llmgw.extproc.server.ExtProcCall.post;
import static io.llmgw.extproc.server.ExtProcCall.requestBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.scraper.FakeModelServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * As a new user would: the packaged {@code ./llmgw serve --config FILE} as its own process, pods at 127.0.0.N:8000,
 * and an external ext_proc client that knows only the wire contract.
 */
class ServeCommandIT {
  static final Path LAUNCHER = Path.of("..", "llmgw").toAbsolutePath().normalize();

  @Test
  void servesAConfigFileAndRoutesOverTheWire() throws Exception {
    List<FakeModelServer> pods = List.of(new FakeModelServer("127.0.0.61", 8000), new FakeModelServer("127.0.0.62", 8000));
    pods.forEach(p -> p.setModels("meta-llama/Llama-3.1-8B-Instruct", List.of("sql-lora-v1")));
    Path config = Files.createTempFile("pool", ".yaml");
    Files.writeString(config, Files.readString(Path.of("..", "examples", "pool.yaml"))
        .replace("127.0.0.11", "127.0.0.61").replace("127.0.0.12", "127.0.0.62"));
    int grpc = freePort();
    int health = freePort();
    Process epp = launch(config, "--bind", "127.0.0.1", "--grpc-port", "" + grpc, "--health-port", "" + health,
        "--metrics-port", "" + freePort());
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", grpc).usePlaintext().build();
    ManagedChannel healthChannel = NettyChannelBuilder.forAddress("127.0.0.1", health).usePlaintext().build();
    try {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
          HealthGrpc.newBlockingStub(healthChannel).withDeadlineAfter(Duration.ofSeconds(1))
              .check(HealthCheckRequest.newBuilder().setService("readiness").build())
              .getStatus() == ServingStatus.SERVING);

      var stub = ExternalProcessorGrpc.newStub(channel);
      List<String> seen = new ArrayList<>();
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        ExtProcCall call = ExtProcCall.open(stub);
        call.send(post("/v1/chat/completions"));
        call.send(requestBody("{\"model\":\"sql-lora\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", true));
        ProcessingResponse r = call.next();
        call.cancel();
        if (!r.hasRequestHeaders()) {
          return false;
        }
        seen.add(ExtProcCall.setHeader(r, Headers.DESTINATION));
        return true;
      });
      assertThat(seen.getLast()).isIn("127.0.0.61:8000", "127.0.0.62:8000");

      ExtProcCall unknown = ExtProcCall.open(stub);
      unknown.send(post("/v1/chat/completions"));
      unknown.send(requestBody("{\"model\":\"gpt-nope\"}", true));
      assertThat(unknown.next().getImmediateResponse().getStatus().getCodeValue()).isEqualTo(404);
    } finally {
      channel.shutdownNow();
      healthChannel.shutdownNow();
      epp.destroy();
      assertThat(epp.waitFor(20, TimeUnit.SECONDS)).as("EPP stops on SIGTERM").isTrue();
      pods.forEach(FakeModelServer::close);
      Files.deleteIfExists(config);
    }
  }

  @Test
  void aBadConfigFileStopsStartWithTheFileDocumentAndField() throws Exception {
    Path config = Files.createTempFile("bad", ".yaml");
    Files.writeString(config, Files.readString(Path.of("..", "examples", "pool.yaml")).replace("weight: 90", "weight: -1"));
    Process p = launch(config, "--grpc-port", "0", "--health-port", "0", "--metrics-port", "0", "--bind", "127.0.0.1");
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).isEqualTo(2);
      assertThat(err).contains(config.toString(), "document 3", "spec.adapter.targets[0].weight");
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(config);
    }
  }

  static Process launch(Path config, String... extra) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(LAUNCHER.toString(), "serve", "--config", config.toString()));
    cmd.addAll(List.of(extra));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    return pb.start();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
