package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** As a new user would: the packaged {@code ./llmgw} launcher, run as its own process. */
class LauncherIT {
  static final Path LAUNCHER = Path.of("..", "llmgw").toAbsolutePath().normalize();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * The first launch after a build records the class archive before it runs the command: on JDK 25 an AOT cache whose
   * training also routes chat through two EPPs with each policy (about a minute on 2 cores), before that a CDS archive
   * of the short commands. Done here once, so that the tests' own waits are for their commands.
   */
  @BeforeAll
  static void theFirstLaunchRecordsTheArchive() throws Exception {
    Path target = LAUNCHER.resolveSibling("cli").resolve("target");
    Files.deleteIfExists(target.resolve("llmgw.aot"));
    Files.deleteIfExists(target.resolve("llmgw.jsa"));
    Launched first = launch(false, "--version");
    assertThat(first.process().waitFor(5, TimeUnit.MINUTES)).as("the training run ends").isTrue();
    assertThat(first.process().exitValue()).as(first.errors()).isZero();
    if (Runtime.version().feature() >= 25) {
      assertThat(first.errors())
          .contains("training the JVM's ahead-of-time cache on the short commands and on routing");
      assertThat(target.resolve("llmgw.aot")).as("the AOT cache beside the jar").isNotEmptyFile();
      // what the cache holds, as the JVM lists it: the precise policy's classes, and the profiles of a routing decision
      Process listing = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-XX:AOTCache=" + target.resolve("llmgw.aot"), "-XX:+PrintSharedArchiveAndExit", "-cp",
          target.resolve("llmgw.jar").toString()).redirectErrorStream(true).start();
      List<String> wanted = List.of("archive is valid", "io.llmgw.picker.scorers.PrecisePrefixCacheScorer",
          "Archived TrainingData Dictionary", "C io/llmgw/picker/SchedulingProfile[A].schedule(");
      List<String> found = new ArrayList<>();
      try (BufferedReader lines = listing.inputReader(StandardCharsets.UTF_8)) {
        // about 150 MB of listing: read as it comes, kept only where it matches
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          for (String w : wanted) {
            if (!found.contains(w) && line.contains(w)) {
              found.add(w);
            }
          }
        }
      }
      assertThat(listing.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(found).containsExactlyInAnyOrderElementsOf(wanted);
    } else {
      assertThat(target.resolve("llmgw.jsa")).as("the CDS archive beside the jar").isNotEmptyFile();
    }
  }

  @Test
  void serveRoutesAConfigFileAndAnswers404ForAnUnknownModel() throws Exception {
    Path config = Files.createTempFile("pool", ".yaml");
    Files.writeString(config, Files.readString(Path.of("..", "examples", "pool.yaml"))
        .replace("127.0.0.11", "127.0.0.61").replace("127.0.0.12", "127.0.0.62"));
    int grpc = LoopbackPorts.free();
    int xds = LoopbackPorts.free();
    try (SimPods pods = SimPods.start(SimConfig.builder().adapters(List.of("sql-lora-v1", "sql-lora-v2")).build(),
        List.of("127.0.0.61", "127.0.0.62"), 8000)) {
      Process epp = launch(false, "serve", "--config", config.toString(), "--bind", "127.0.0.1", "--grpc-port",
          "" + grpc,
          "--health-port", "" + LoopbackPorts.free(), "--metrics-port", "" + LoopbackPorts.free(),
          "--xds-port", "" + xds).process();
      try (DevProxy proxy = DevProxy.start(ProxySettings.defaults().withListener("127.0.0.1", 0)
          .withEpp("127.0.0.1", grpc))) {
        String chat = "{\"model\":\"sql-lora\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        HttpResponse<String> ok = await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
            .until(() -> post(proxy.port(), chat), r -> r.statusCode() == 200);
        assertThat(ok.body()).contains("\"model\":\"sql-lora\"");
        HttpResponse<String> unknown = post(proxy.port(), chat.replace("sql-lora", "gpt-nope"));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("gpt-nope");
        assertThat(servedClusters(xds)).as("--xds-port serves Envoy the pool's cluster")
            .contains("epp", "model_servers", "pool/default/llama-pool");
        Files.writeString(config, Files.readString(config) + FileModeYaml.SEPARATOR
            + FileModeYaml.pool("mistral-pool", "vllm-mistral", 8000));
        await().atMost(Duration.ofSeconds(20)).until(() -> servedClusters(xds).contains("pool/default/mistral-pool"));
      } finally {
        epp.destroy();
        assertThat(epp.waitFor(20, TimeUnit.SECONDS)).as("EPP stops on SIGTERM").isTrue();
        Files.deleteIfExists(config);
      }
    }
  }

  /** Asks the xDS server for clusters over one ADS stream, as Envoy's first request does. */
  static List<String> servedClusters(int port) throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      var stream = ClientCalls.blockingBidiStreamingCall(channel,
          AggregatedDiscoveryServiceGrpc.getStreamAggregatedResourcesMethod(), CallOptions.DEFAULT);
      stream.write(DiscoveryRequest.newBuilder().setNode(Node.newBuilder().setId("it"))
          .setTypeUrl("type.googleapis.com/envoy.config.cluster.v3.Cluster").build());
      DiscoveryResponse r = stream.read(10, TimeUnit.SECONDS);
      assertThat(r).as("a CDS response within 10 s").isNotNull();
      List<String> names = new ArrayList<>();
      for (var any : r.getResourcesList()) {
        names.add(any.unpack(Cluster.class).getName());
      }
      stream.cancel("done", null);
      return names;
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aBadConfigFileStopsStartWithTheFileDocumentAndField() throws Exception {
    Path config = Files.createTempFile("bad", ".yaml");
    Files.writeString(config, Files.readString(Path.of("..", "examples", "pool.yaml"))
        .replace("weight: 90", "weight: -1"));
    Launched launched = launch(false, "serve", "--config", config.toString(), "--grpc-port", "0", "--health-port",
        "0", "--metrics-port", "0", "--bind", "127.0.0.1");
    Process p = launched.process();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String err = launched.errors();
      assertThat(p.exitValue()).isEqualTo(2);
      assertThat(err).contains(config.toString(), "document 3", "spec.adapter.targets[0].weight");
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(config);
    }
  }

  /**
   * Issue 16: on a machine where the quickstart's pod addresses (127.0.0.11-14:8000) are taken, the default run says
   * which flags move them, and the run with those flags does the whole demonstration.
   */
  @Test
  void quickstartRunsItsDemonstrationAndPrintsTheTablesWhereItsPodAddressesAreTaken() throws Exception {
    List<java.net.ServerSocket> taken = new ArrayList<>();
    try {
      for (int i = 11; i <= 14; i++) {
        try {
          taken.add(new java.net.ServerSocket(8000, 1, java.net.InetAddress.getByName("127.0.0." + i)));
        } catch (IOException alreadyTaken) {
          // taken by something else: just as good
        }
      }
      Launched clash = launch(false, "quickstart", "--no-envoy", "--listen", "127.0.0.1:0", "--requests", "5",
          "--duration", "0s");
      assertThat(clash.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(clash.process().exitValue()).isEqualTo(1);
      assertThat(clash.errors()).contains("cannot listen on [127.0.0.11", "--first-ip", "--ephemeral-ports");

      Launched launched = launch(true, "quickstart", "--first-ip", "127.0.0.151", "--listen", "127.0.0.1:0",
          "--ephemeral-ports", "--requests", "60", "--rate", "30", "--duration", "0s");
      Process p = launched.process();
      try {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out + launched.errors()).isZero();
        // the only acceptable failures are 429s of the sheddable summaries route, which a busy machine can saturate:
        // the summary counts them apart from errors (issue 32)
        assertThat(out).containsPattern("60 requests: \\d+ ok, \\d+ shed by design, 0 errors \\{(429=\\d+, )?ok=\\d+}");
        assertThat(out).contains("4 simulated pods", "time to first token p50", "127.0.0.151:", "affinity hits",
            "Try it yourself", "curl -s http://127.0.0.1:", "60/60 sent");
        assertThat(out).as("no progress bar redrawn into a pipe").doesNotContain("\r");
      } finally {
        p.destroyForcibly();
      }
    } finally {
      for (java.net.ServerSocket s : taken) {
        s.close();
      }
    }
  }

  /**
   * Issue 53: tenants in one command. Two tenants' keys printed once, their budgets beside the routes, the
   * demonstration sent with their keys, the batch submitted as one of them and sent by the batch service on its behalf,
   * and what each spent in the report.
   */
  @Test
  void quickstartWithTenantsServesTwoTenantsAndTheirBatchAndShowsWhatEachSpent() throws Exception {
    Launched launched = launch(true, "quickstart", "--tenants", "--first-ip", "127.0.0.161", "--listen",
        "127.0.0.1:0", "--ephemeral-ports", "--requests", "60", "--rate", "30", "--batch-lines", "12", "--duration",
        "0s");
    Process p = launched.process();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(out + launched.errors()).isZero();
      assertThat(out).containsPattern("team-a  sk-llmgw-[A-Za-z0-9_-]{32}  \\(weight 2")
          .containsPattern("team-b  sk-llmgw-[A-Za-z0-9_-]{32}  \\(40,000 tokens a minute")
          .containsPattern("60 requests: \\d+ ok, \\d+ shed by design, 0 errors")
          .containsPattern("12 requests: 12 completed, 0 failed")
          .containsPattern("-H 'authorization: Bearer sk-llmgw-");
      assertThat(out).contains("TENANT");
      Matcher rows = Pattern.compile("(?m)^(team-[ab]) +(\\d+)").matcher(out);
      List<String> spent = new ArrayList<>();
      while (rows.find()) {
        assertThat(Long.parseLong(rows.group(2))).as("%s spent tokens: %s", rows.group(1), out).isPositive();
        spent.add(rows.group(1));
      }
      assertThat(spent).as(out).containsExactlyInAnyOrder("team-a", "team-b");
    } finally {
      p.destroyForcibly();
    }
  }

  static HttpResponse<String> post(int port, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
        .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A launched process; standard error goes to a file, so a chatty process never blocks on a full pipe. */
  record Launched(Process process, Path stderr) {
    String errors() throws IOException {
      return Files.readString(stderr);
    }
  }

  static Launched launch(boolean readStdout, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(LAUNCHER.toString()));
    cmd.addAll(List.of(args));
    Path err = Files.createTempFile("llmgw", ".err");
    err.toFile().deleteOnExit();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
    if (!readStdout) {
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }
    return new Launched(pb.start(), err);
  }

}
