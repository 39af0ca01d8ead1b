package io.llmgw.bench.load;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.client.BatchClient;
import io.llmgw.bench.ProcessCpu;
import io.llmgw.sim.engine.SimConfig;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 53, item 7: {@link BatchIdlePoolRun}'s question asked as a deployment would ask it. The simulated pods, the
 * EPP, the dev proxy and the batch service each run as {@code llmgw} does, from its jar, in a JVM of its own and at
 * their defaults; only the pods' {@code --max-num-seqs} and the dispatcher's {@code --slots-per-pod} are given. It
 * reports the dispatches the EPP refused (429), the batch's throughput and each process's CPU per line.
 * Usage: JAR [pods] [sequences] [slots-per-pod] [lines] [seed] [trivial]. Bounded: 30 minutes.
 */
public final class BatchIdleProcessRun {
  private static final Duration LIMIT = Duration.ofMinutes(30);
  private static final Duration START = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int seqs = args.length > 2 ? Integer.parseInt(args[2]) : 16;
    int slots = args.length > 3 ? Integer.parseInt(args[3]) : 64;
    int lines = args.length > 4 ? Integer.parseInt(args[4]) : 3_000;
    long seed = args.length > 5 ? Long.parseLong(args[5]) : 1;
    // "trivial": pods whose steps cost next to nothing, so the run shows what the rest (dispatcher, proxy, EPP) can
    // carry: the client's ceiling the simulated runs' throughputs are to be read against
    boolean trivial = args.length > 6 && args[6].equals("trivial");
    SimConfig sim = BatchRun.pods(seed, seqs);
    double capacity = PriorityRun.capacity(sim, 56) * pods / BatchRun.PODS;
    Path dir = Files.createTempDirectory("llmgw-batch-idle-processes");
    List<String> addresses = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      addresses.add("127.0.0." + (11 + i) + ":8000");
    }
    Path config = dir.resolve("pool.yaml");
    Files.writeString(config, BatchRun.config(addresses));
    int grpc = LoopbackPorts.free();
    int metrics = LoopbackPorts.free();
    int front = LoopbackPorts.free();
    int batch = LoopbackPorts.free();
    LinkedHashMap<String, Process> parts = new LinkedHashMap<>();
    try {
      start(parts, "pods", jar, dir, "server(s) for", "sim", "--pods", Integer.toString(pods), "--first-ip",
          "127.0.0.11", "--port", "8000", "--model", BatchRun.MODEL, "--max-num-seqs", Integer.toString(seqs),
          "--max-loras", "1", "--decode-base-ms", trivial ? "0.05" : Double.toString(sim.decodeBaseMs()),
          "--decode-per-seq-ms", trivial ? "0" : Double.toString(sim.decodePerSeqMs()), "--prefill-overhead-ms",
          trivial ? "0" : Double.toString(sim.prefillOverheadMs()), "--prefill-per-token-ms",
          trivial ? "0" : Double.toString(sim.prefillPerTokenMs()), "--seed", Long.toString(seed));
      start(parts, "EPP", jar, dir, "ext_proc on", "serve", "--config", config.toString(), "--bind", "127.0.0.1",
          "--grpc-port", Integer.toString(grpc), "--health-port", Integer.toString(LoopbackPorts.free()),
          "--metrics-port", Integer.toString(metrics));
      start(parts, "proxy", jar, dir, "dev proxy on", "proxy", "--listen", "127.0.0.1:" + front, "--epp",
          "127.0.0.1:" + grpc, "--batch-service", "127.0.0.1:" + batch);
      start(parts, "batch service", jar, dir, "batch service on", "batch", "--port", Integer.toString(batch),
          "--store", "sqlite:" + dir.resolve("batch.db"), "--epp", "127.0.0.1:" + metrics, "--gateway",
          "http://127.0.0.1:" + front, "--slots-per-pod", Integer.toString(slots));
      Map<String, Long> cpuBefore = cpu(parts);
      long started = System.nanoTime();
      String status;
      try (BatchClient client = new BatchClient("http://127.0.0.1:" + front)) {
        String id = client.create(client.upload("idle.jsonl", BatchRun.batchFile(lines, seed)),
            "/v1/chat/completions");
        status = client.awaitDone(id, LIMIT).path("status").asText();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      Map<String, Long> cpuAfter = cpu(parts);
      String page = get("http://127.0.0.1:" + batch + "/metrics");
      double done = counter(page, "llmgw_batch_completed_total");
      double dispatched = counter(page, "llmgw_batch_dispatched_total");
      double refused = counter(page, "llmgw_batch_retried_total\\{[^}]*reason=\"429\"");
      StringBuilder cpuPerLine = new StringBuilder();
      cpuAfter.forEach((name, ms) -> cpuPerLine.append(cpuPerLine.isEmpty() ? "" : ", ").append(name).append(' ')
          .append(String.format(Locale.ROOT, "%.2f", (ms - cpuBefore.get(name)) / Math.max(1, done))));
      System.out.printf(Locale.ROOT,
          "| %d × %d | %d | %d | %s | %.0f / %.0f | %.0f (%.2f %%) | %.1f/s (%.0f %% of %.1f) "
              + "| %s |%n",
          pods, seqs, slots, lines, status, done, dispatched, refused,
          100 * refused / Math.max(1, dispatched), done / seconds, 100 * done / seconds / capacity, capacity,
          cpuPerLine);
    } finally {
      for (Process p : parts.sequencedValues().reversed()) {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  /** {@code java -jar JAR ARGS…} with its output in a log of its own; returns once the log shows {@code ready}. */
  private static void start(Map<String, Process> parts, String name, Path jar, Path dir, String ready,
      String... args) throws Exception {
    Path log = dir.resolve(name.replace(' ', '-') + ".log");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    // the flags this JVM was given for native access and Unsafe (scripts/jvm-flags), as the launcher gives them
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--enable-native-access") || a.startsWith("--sun-misc-unsafe-memory-access"))
        .forEach(cmd::add);
    cmd.addAll(List.of("-jar", jar.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    parts.put(name, p);
    long deadline = System.nanoTime() + START.toNanos();
    while (!Files.readString(log).contains(ready)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " did not start; its log: " + Files.readString(log));
      }
      Thread.sleep(100); // polling a child's log, with a deadline
    }
  }

  private static Map<String, Long> cpu(Map<String, Process> parts) throws Exception {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Map.Entry<String, Process> e : parts.entrySet()) {
      out.put(e.getKey(), ProcessCpu.millis(Files.readString(Path.of("/proc", Long.toString(e.getValue().pid()),
          "stat"))));
    }
    return out;
  }

  private static String get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The sum of a counter's series matching {@code name} (a regular expression up to the value). */
  private static double counter(String page, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "[^ ]* ([0-9.eE+-]+)$").matcher(page);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  private BatchIdleProcessRun() {}
}
