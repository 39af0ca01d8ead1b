package io.llmgw.bench.load;

import io.llmgw.api.FileModeYaml;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.BatchService;
import io.llmgw.batch.client.BatchClient;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.extproc.EppSettings;
import io.llmgw.loadgen.OpenLoopRun;
import io.llmgw.loadgen.Rig;
import io.llmgw.loadgen.RunResult;
import io.llmgw.loadgen.Workload;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Batch next to interactive traffic (issue 14's benchmark), on one simulated pool, a fresh pool per arm: interactive
 * load alone; interactive plus a batch fed by the batch dispatcher (at two baselines B); interactive plus a naive
 * forwarder that sends batch requests as fast as it can and retries 429s. Interactive requests are streaming chats at
 * half the pool's capacity; batch requests are the same chats without streaming, sheddable (the "batch" objective,
 * priority -100). One dispatcher arm runs pods that schedule by priority (vLLM's {@code --scheduling-policy priority})
 * with the dispatcher's {@code --pod-priority 10} on its lines. Reports interactive TTFT, batch requests completed per second, and the pool's utilisation (running
 * sequences over slots, sampled every 100 ms). Usage: [interactive rate] [seconds] [seeds, e.g. 1,2,3] [baselines B].
 */
public final class BatchRun {
  static final int PODS = 4;
  static final int SEQS = 8;
  static final String MODEL = SimConfig.DEFAULT_MODEL;

  /** The pool's pods: {@link #SEQS} sequences, decode 20 ms + 1 ms per running sequence, no adapters. */
  static SimConfig pods(long seed) {
    return pods(seed, SEQS);
  }

  static SimConfig pods(long seed, int seqs) {
    return SimConfig.builder().adapters(List.of()).loras(1, 1)
        .capacity(seqs, 1024, SimConfig.defaults().numGpuBlocks()).decode(20, 1.0).seed(seed).build();
  }

  public static void main(String[] args) throws Exception {
    SimConfig sim = pods(1);
    double capacity = PriorityRun.capacity(sim, 56);
    double rate = args.length > 0 ? Double.parseDouble(args[0]) : 0.5 * capacity;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 30;
    List<Long> seeds = args.length > 2 ? java.util.Arrays.stream(args[2].split(",")).map(Long::parseLong).toList()
        : List.of(1L);
    List<Double> baselines = args.length > 3 ? java.util.Arrays.stream(args[3].split(",")).map(Double::parseDouble)
        .toList() : List.of(0.05);
    System.out.printf(Locale.ROOT, "%d pods × %d sequences, capacity ≈ %.1f requests/s; interactive %.1f/s (%.0f %%) "
        + "for %.0f s; seeds %s%n", PODS, SEQS, capacity, rate, 100 * rate / capacity, seconds, seeds);
    Path dir = Files.createTempDirectory("llmgw-batch-bench");
    StringBuilder table = new StringBuilder("| seed | arm | interactive ok | interactive TTFT p50 / p99 ms "
        + "| p99 vs alone | batch done/s | batch 429s | pool utilisation | batch share of idle capacity |\n"
        + "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (long seed : seeds) {
      Arm alone = run("interactive alone", sim, rate, seconds, seed, dir, Mode.NONE, 0);
      List<Arm> arms = new ArrayList<>(List.of(alone));
      for (double b : baselines) {
        arms.add(run(String.format(Locale.ROOT, "+ batch dispatcher, B = %.2f", b), sim, rate, seconds, seed, dir,
            Mode.DISPATCHER, b));
      }
      // the pods schedule by priority (vLLM's --scheduling-policy priority) and the dispatcher marks its lines low:
      // an interactive request that finds every slot taken preempts a batch line instead of waiting for one to end
      arms.add(run(String.format(Locale.ROOT, "+ batch dispatcher, B = %.2f, pods by priority", baselines.getFirst()),
          sim.toBuilder().priorityScheduling(true).build(), rate, seconds, seed, dir, Mode.DISPATCHER,
          baselines.getFirst()));
      Arm naive = run("+ naive forwarder", sim, rate, seconds, seed, dir, Mode.NAIVE, 0);
      arms.add(naive);
      // the capacity interactive traffic leaves idle, in requests per second: what the naive arm, which keeps the
      // pool saturated, completed beyond the interactive requests
      double idle = naive.result.throughput() + naive.batchPerSecond - alone.result.throughput();
      for (Arm a : arms) {
        table.append(String.format(Locale.ROOT, "| %d | %s | %d/%d | %.0f / %.0f | %s | %.1f | %d | %.0f %% | %s |%n",
            seed, a.name, a.result.ok(), a.result.sent(), a.result.ttftMs(50), a.result.ttftMs(99),
            a == alone ? "–" : String.format(Locale.ROOT, "%+.0f %%", 100 * (a.result.ttftMs(99)
                / alone.result.ttftMs(99) - 1)),
            a.batchPerSecond, a.batch429, 100 * a.utilisation,
            a == alone ? "–" : String.format(Locale.ROOT, "%.0f %%", 100 * a.batchPerSecond / idle)));
      }
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  enum Mode { NONE, DISPATCHER, NAIVE }

  record Arm(String name, RunResult result, double batchPerSecond, int batch429, double utilisation) {}

  private static Arm run(String name, SimConfig sim, double rate, double seconds, long seed, Path dir, Mode mode,
      double baseline) throws Exception {
    SimPods pods = SimPods.start(sim, PODS, "127.0.0.11", 8000);
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, config(pods));
    int batchPort = LoopbackPorts.free();
    EppSettings s = EppSettings.defaults(config).onLoopbackEphemeralPorts().withPolicy(PolicyShorthand.SCORERS, 50);
    System.out.printf("  %-32s ...", name);
    System.out.flush();
    try (Rig rig = Rig.start(pods, s, ProxySettings.defaults().withListener("127.0.0.1", 0)
        .withBatchService("127.0.0.1:" + batchPort))) {
      String front = "http://127.0.0.1:" + rig.proxyPort();
      BatchService service = null;
      BatchClient client = null;
      String batchId = null;
      ExecutorService naive = null;
      AtomicInteger naiveDone = new AtomicInteger();
      AtomicInteger naive429 = new AtomicInteger();
      AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
      if (mode == Mode.DISPATCHER) {
        service = BatchService.start(new BatchSettings(
            new BatchSettings.Endpoints("127.0.0.1", batchPort, "127.0.0.1:" + rig.epp().metricsPort(), front, null),
            "sqlite:" + dir.resolve(name.hashCode() + "-" + System.nanoTime() + ".db"),
            new BatchSettings.Budget(baseline, 0.95, SEQS, Map.of(), Duration.ofMillis(50), 10_000),
            new BatchSettings.Delivery("batch", Duration.ofSeconds(60), Duration.ofMinutes(5), 5,
                sim.priorityScheduling() ? Integer.valueOf(10) : null),
            BatchSettings.InputLimits.defaults(), Duration.ofDays(30), BatchSettings.Access.OPEN),
            Clock.systemUTC());
        client = new BatchClient(front);
        int lines = (int) (PriorityRun.capacity(sim, 56) * seconds * 1.5);
        batchId = client.create(client.upload("bench.jsonl", batchFile(lines, seed)), "/v1/chat/completions");
      }
      if (mode == Mode.NAIVE) {
        naive = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AtomicInteger next = new AtomicInteger();
        for (int i = 0; i < 2 * PODS * SEQS; i++) {
          naive.execute(() -> forwardAsFastAsPossible(http, front, seed, next, stopAt, naiveDone, naive429));
        }
      }
      String pool = "default/sim-pool";
      double completedBefore = service == null ? 0 : service.metrics().completedTotal(pool);
      int naiveBefore = naiveDone.get();
      UtilisationSampler sampler = new UtilisationSampler(pods);
      long start = System.nanoTime();
      RunResult r = new OpenLoopRun("127.0.0.1", rig.proxyPort(), Workload.of("interactive", List.of(MODEL),
          new double[] {1}, 16, 96), rate, seconds, seed, 4096, 180).run(n -> {});
      double elapsed = (System.nanoTime() - start) / 1e9;
      double utilisation = sampler.stop();
      double batchDone = service != null ? service.metrics().completedTotal(pool) - completedBefore
          : naiveDone.get() - naiveBefore;
      int batch429 = service != null ? (int) service.metrics().retriedTotal(pool, "429") : naive429.get();
      stopAt.set(0);
      if (naive != null) {
        naive.shutdownNow();
        naive.awaitTermination(30, TimeUnit.SECONDS);
      }
      if (service != null) {
        client.close();
        service.close();
      }
      System.out.printf(" %d/%d interactive ok%n", r.ok(), r.sent());
      return new Arm(name, r, batchDone / elapsed, batch429, utilisation);
    }
  }

  /** One of the naive forwarder's workers: the batch file's requests in order, each retried until it is answered. */
  private static void forwardAsFastAsPossible(HttpClient http, String front, long seed, AtomicInteger next,
      AtomicLong stopAt, AtomicInteger done, AtomicInteger throttled) {
    HttpRequest req = null;
    while (System.nanoTime() < stopAt.get()) {
      if (req == null) {
        req = HttpRequest.newBuilder(URI.create(front + "/v1/chat/completions"))
            .header("content-type", "application/json").header("x-gateway-inference-objective", "batch")
            .timeout(Duration.ofMinutes(2)).POST(HttpRequest.BodyPublishers.ofString(chat(next.getAndIncrement(),
                seed)))
            .build();
      }
      try {
        int status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status == 200) {
          done.incrementAndGet();
          req = null;
        } else if (status == 429) {
          throttled.incrementAndGet();
          Thread.sleep(100); // a naive client's fixed pause before retrying
        }
      } catch (InterruptedException e) {
        return;
      } catch (java.io.IOException e) {
        // counted as nothing; try again
      }
    }
  }

  /** Running sequences over slots, every 100 ms, averaged. */
  private static final class UtilisationSampler {
    private final Thread thread;
    private volatile boolean stopped;
    private double sum;
    private int samples;

    UtilisationSampler(SimPods pods) {
      thread = Thread.ofPlatform().daemon().start(() -> {
        while (!stopped) {
          int running = 0;
          for (SimServer p : pods.pods()) {
            running += p.engine().runningCount();
          }
          sum += (double) running / (PODS * SEQS);
          samples++;
          try {
            Thread.sleep(100); // the sampling period
          } catch (InterruptedException e) {
            return;
          }
        }
      });
    }

    double stop() throws InterruptedException {
      stopped = true;
      thread.join();
      return samples == 0 ? 0 : sum / samples;
    }
  }

  static String chat(int i, long seed) {
    int tokens = 16 + (int) ((i * 7919L + seed) % 81); // 16..96, mean 56, as the interactive workload
    return "{\"model\":\"" + MODEL + "\",\"max_tokens\":" + tokens + ",\"messages\":[{\"role\":\"user\",\"content\":"
        + "\"Summarise document " + i + " in a paragraph.\"}]}";
  }

  static byte[] batchFile(int lines, long seed) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      out.append("{\"custom_id\":\"doc-").append(i).append("\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\","
          + "\"body\":").append(chat(i, seed)).append("}\n");
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  static String config(SimPods pods) {
    return config(pods.podAddresses());
  }

  static String config(List<String> podAddresses) {
    return FileModeYaml.pool("sim-pool", "sim", 8000) + FileModeYaml.SEPARATOR
        + FileModeYaml.route("interactive", "sim-pool", MODEL, 10) + FileModeYaml.SEPARATOR + """
            apiVersion: inference.networking.x-k8s.io/v1alpha2
            kind: InferenceObjective
            metadata: {name: batch}
            spec: {priority: -100, poolRef: {name: sim-pool}}
            """ + FileModeYaml.pods("sim", "sim", podAddresses);
  }

}
