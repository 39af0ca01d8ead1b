package io.llmgw.bench.load;

import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How fast the load benches' own clients go against a server that answers at once: the open-loop client of
 * {@code ./llmgw bench} ({@link OpenLoopRun}) and the closed-loop users of {@link TenantFairnessRun}
 * ({@link ClosedLoop}), each on the machine alone, so that a table measured with them can say its client was far
 * from its own limit. The server is a Vert.x HTTP server on loopback that streams a fixed chat completion (two content
 * chunks, a usage chunk, {@code [DONE]}) without reading the prompt. Usage: {@code ClientCeilingRun [seconds]}.
 * Reports completed requests a second and the process's CPU per request (client and trivial server together, an upper
 * bound of the client's).
 */
public final class ClientCeilingRun {
  private static final String STREAM = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n"
      + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}\n\n"
      + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12}}\n\n"
      + "data: [DONE]\n\n";
  private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
      .getOperatingSystemMXBean();

  private ClientCeilingRun() {}

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
    Vertx vertx = Vertx.vertx();
    HttpServer server = vertx.createHttpServer()
        .requestHandler(req -> req.body().onComplete(ignored -> req.response().setChunked(true)
            .putHeader("content-type", "text/event-stream").end(STREAM)))
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    int port = server.actualPort();
    try {
      System.out.println(
          "| client | workload | offered | completed/s | errors | TTFT p50 / p99 ms | process CPU per request (ms) |");
      System.out.println("|---|---|---:|---:|---:|---:|---:|");
      for (double rate : List.of(200.0, 1_000.0, 2_000.0)) {
        for (Workload w : List.of(Workload.prefix("base-model", 40), Workload.chat("base-model"))) {
          long cpu0 = OS.getProcessCpuTime();
          RunResult r = new OpenLoopRun("127.0.0.1", port, w, rate, seconds, 1, 100_000, 30).run(n -> {});
          double cpuMs = (OS.getProcessCpuTime() - cpu0) / 1e6;
          System.out.printf("| open loop (`./llmgw bench`) | %s | %,.0f/s | %,.0f | %d | %.1f / %.1f | %.3f |%n",
              w.name(), rate, r.throughput(), r.errors(), r.ttftMs(50), r.ttftMs(99), cpuMs / r.sent());
        }
      }
      String url = "http://127.0.0.1:" + port + "/v1/chat/completions";
      long cpu0 = OS.getProcessCpuTime();
      Duration window = Duration.ofMillis((long) (seconds * 1000));
      ClosedLoop.Result[] out = ClosedLoop.runTogether(List.of(new ClosedLoop(url, "sk-light", 200, 16, 64),
          new ClosedLoop(url, "sk-heavy", 2_000, 16, 16)), Duration.ofSeconds(2), window);
      double cpuMs = (OS.getProcessCpuTime() - cpu0) / 1e6;
      long requests = out[0].requests() + out[1].requests();
      System.out.printf("| closed loop (`TenantFairnessRun`), 80 users | 200- and 2,000-token prompts | – | %,.0f | %d "
          + "| %.1f / %.1f | %.3f (over warm-up and window) |%n", requests / (seconds),
          out[0].errors() + out[1].errors(),
          out[0].ttftMs(50), out[0].ttftMs(99), cpuMs / Math.max(1, requests));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
