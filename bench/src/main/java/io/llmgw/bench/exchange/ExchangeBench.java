package io.llmgw.bench.exchange;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc.ExternalProcessorStub;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.bench.ExtProcFrames;
import io.llmgw.bench.ScrapeLoadRun;
import io.llmgw.bench.StaticPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The ext_proc exchange benchmark: this process is the client only (Envoy's part), the null server and
 * {@code llmgw serve} each run in a JVM of their own, started fresh for each window and alone on the machine while
 * measured, and every run measures both, alternating, so that their ratio compares like with like. Refuses a ratio when it cannot drive the null server to {@value #MIN_NULL_SMALL_RATE}
 * small requests a second: below that the client, not the server, sets the pace.
 */
@Command(name = "exchange", mixinStandardHelpOptions = true,
    description = "Drive the null ext_proc server and the EPP with Envoy's frames from a separate process; print rate, "
        + "latency and each server's CPU per exchange.")
public final class ExchangeBench implements Callable<Integer> {
  static final int MIN_NULL_SMALL_RATE = 10_000;

  @Option(names = "--shape", defaultValue = "small", description = "small (1.7 KiB chat request, one JSON response "
      + "frame), long (--bytes in --frame-bytes frames) or whole (small request, --chunks SSE response frames).")
  String shape;

  @Option(names = "--streams", defaultValue = "32", description = "Concurrent streams (default: ${DEFAULT-VALUE}).")
  int streams;

  @Option(names = "--connections", defaultValue = "2",
      description = "HTTP/2 connections the streams share, as Envoy opens one per worker (default: ${DEFAULT-VALUE}).")
  int connections;

  @Option(names = "--bytes", defaultValue = "225280", description = "long: request body bytes (default 220 KiB).")
  int bytes;

  @Option(names = "--frame-bytes", defaultValue = "16384", description = "long: bytes per body frame (default 16 KiB).")
  int frameBytes;

  @Option(names = "--chunks", defaultValue = "200", description = "whole: response frames (default: ${DEFAULT-VALUE}).")
  int chunks;

  @Option(names = "--warmup", defaultValue = "60", description = "Seconds before each window: on two cores the EPP's "
      + "JIT compiler still spent 0.13 ms per whole exchange in a window after 30 s, which the report shows and "
      + "warns of (default: ${DEFAULT-VALUE}).")
  int warmupSeconds;

  @Option(names = "--window", defaultValue = "10", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
  int windowSeconds;

  @Option(names = "--runs", defaultValue = "3",
      description = "Windows per server, alternating (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--pods", defaultValue = "8",
      description = "Static pods the EPP routes over (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(names = "--epp-jar", defaultValue = "cli/target/llmgw.jar", description = "The llmgw jar to serve from.")
  Path eppJar;

  @Option(names = "--epp-flag",
      description = "An extra flag for llmgw serve (repeatable), e.g. --epp-flag=--policy=scorers.")
  List<String> eppFlags = new ArrayList<>();

  @Option(names = "--server-jvm-flag", description = "An extra JVM flag for both servers (repeatable); {name} in it "
      + "becomes the server's file name in the log directory, e.g. -agentpath:LIB=start,event=cpu,file={name}.html "
      + "for async-profiler.")
  List<String> serverJvmFlags = new ArrayList<>();

  @Option(names = "--null-only", description = "Measure the null server alone (to check the client's reach).")
  boolean nullOnly;

  public static void main(String[] args) {
    // Netty samples one buffer in 128 for leak tracking, with a stack trace each: the client's cost, not the servers'
    System.setProperty("io.grpc.netty.shaded.io.netty.leakDetection.level", "disabled");
    System.exit(new CommandLine(new ExchangeBench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    ExchangeShape s = switch (shape) {
      case "small" -> ExchangeShape.small();
      case "long" -> ExchangeShape.longPrompt(bytes, frameBytes);
      case "whole" -> ExchangeShape.whole(chunks);
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "unknown shape " + shape);
    };
    Path dir = Files.createTempDirectory("llmgw-exchange");
    try (StaticPods staticPods = new StaticPods(pods, 0, idlePodMetrics(), "{\"data\":[{\"id\":\"base\"},"
        + "{\"id\":\"" + ExchangeShape.MODEL + "\",\"parent\":\"base\"}]}")) {
      Path config = dir.resolve("pool.yaml");
      Files.writeString(config, ExtProcFrames.yaml(staticPods)); // routes "adapter-1", the shapes' model
      List<ExchangeDriver.Window> windows = new ArrayList<>();
      // one server at a time: an idle JVM beside the measured one still compiles and scrapes, and would bill its
      // neighbour's window for it
      for (int run = 0; run < runs; run++) {
        try (ServerProcess nullServer = ServerProcess.nullServer(staticPods.address(0), dir, serverJvmFlags)) {
          windows.add(window(nullServer, s));
        }
        if (!nullOnly) {
          try (ServerProcess epp = ServerProcess.epp(eppJar, config, eppArguments(), dir, serverJvmFlags)) {
            windows.add(window(epp, s));
          }
        }
      }
      System.out.print(ExchangeReport.render(s, streams, connections, windows, shape.equals("small")));
      System.out.println("server logs: " + dir);
    }
    return 0;
  }

  private ExchangeDriver.Window window(ServerProcess server, ExchangeShape s) throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    List<ExternalProcessorStub> stubs = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().directExecutor()
          .build();
      channels.add(c);
      stubs.add(ExternalProcessorGrpc.newStub(c));
    }
    try {
      ExchangeDriver.Window w = ExchangeDriver.measure(server, stubs, s, streams, Duration.ofSeconds(warmupSeconds),
          Duration.ofSeconds(windowSeconds));
      System.err.printf("%s: %.0f /s, %.3f ms CPU per exchange (%.3f cores), client %.3f ms, machine %.0f %% busy, "
          + "%d errors%n", w.server(), w.rate(), w.serverCpuPerExchange(), w.serverCpuMillis() / w.seconds() / 1000,
          w.clientCpuPerExchange(), 100 * w.machineBusy(), w.errors());
      return w;
    } finally {
      channels.forEach(ManagedChannel::shutdownNow);
    }
  }

  /**
   * A pod with room: the routing path is what is measured, not flow control holding requests. At thousands of
   * requests a second, far more than 8 real pods take, the requests sent between two scrapes would otherwise count as
   * each pod's queue and hold the pool saturated, so the queue limit is raised unless the run sets it.
   */
  private List<String> eppArguments() {
    List<String> args = new ArrayList<>(eppFlags);
    if (args.stream().noneMatch(a -> a.startsWith("--saturation-queue-limit"))) {
      args.add("--saturation-queue-limit=1000000");
    }
    return args;
  }

  private static String idlePodMetrics() {
    return ScrapeLoadRun.metricsPage()
        .replace("vllm:num_requests_waiting{engine=\"0\",model_name=\"base\"} 3.0",
            "vllm:num_requests_waiting{engine=\"0\",model_name=\"base\"} 0.0")
        .replace("vllm:num_requests_running{engine=\"0\",model_name=\"base\"} 12.0",
            "vllm:num_requests_running{engine=\"0\",model_name=\"base\"} 2.0")
        .replace("vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"base\"} 0.42",
            "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"base\"} 0.1");
  }
}
