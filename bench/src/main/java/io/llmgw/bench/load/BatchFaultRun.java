package io.llmgw.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.api.LoopbackPorts;
import io.llmgw.batch.client.BatchClient;
import io.llmgw.bench.faults.EppChild;
import io.llmgw.devproxy.DevProxy;
import io.llmgw.devproxy.ProxySettings;
import io.llmgw.loadgen.PoolStats;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The batch service under an operator's ordinary faults (issue 27): a batch of {@code lines} lines through the real
 * gateway (4 simulated pods and the dev proxy in this JVM, the EPP and the batch service in JVMs of their own), and
 * once a quarter of it is served, one fault: the front proxy stopped for 30 s and started again on its port; the EPP
 * stopped (SIGTERM) and started again; or, where this user may mount a tmpfs, the store's disk filled and freed five
 * times; and, apart, a delete of the input file of 200 batches of 20 lines just created. Prints, per fault, what
 * the output and error files hold and the service's log lines about the fault. Usage: [lines] [faults:
 * proxy,epp,disk,delete].
 */
public final class BatchFaultRun {
  private static final ObjectMapper JSON = new ObjectMapper();

  private interface Fault {
    void inject(Env env) throws Exception;
  }

  /** What a fault may act on. */
  private record Env(Path dir, Path config, int grpcPort, int eppMetricsPort, int servicePort, Process[] epp,
      DevProxy[] proxy, ProxySettings proxySettings, Path disk) {}

  public static void main(String[] args) throws Exception {
    int lines = args.length > 0 ? Integer.parseInt(args[0]) : 4000;
    List<String> faults = List.of((args.length > 1 ? args[1] : "proxy,epp,disk,delete").split(","));
    Path dir = Files.createTempDirectory("llmgw-batch-faults");
    StringBuilder table = new StringBuilder(
        "| fault | lines | completed | failed | requests the pods served | output lines "
            + "| distinct custom_ids | duplicated | the service's WARN lines | seconds |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
    for (String fault : faults) {
      switch (fault) {
        case "proxy" -> table.append(run("front proxy stopped 30 s, started again", lines, dir, false,
            BatchFaultRun::proxyOutage));
        case "epp" -> table.append(run("EPP stopped (SIGTERM) and started again", lines, dir, false,
            BatchFaultRun::eppRestart));
        case "disk" -> {
          if (canMountTmpfs(dir)) {
            table.append(run("store's tmpfs filled and freed, 5 times", lines, dir, true, BatchFaultRun::fillDisk));
          } else {
            System.out.println("cannot mount a tmpfs here (needs root): the disk row is skipped");
          }
        }
        case "delete" -> table.append(deleteUnder200(dir));
        default -> throw new IllegalArgumentException("no such fault: " + fault + " (proxy, epp, disk, delete)");
      }
    }
    System.out.println();
    System.out.print(table);
    System.exit(0);
  }

  private static String run(String name, int lines, Path dir, boolean onTmpfs, Fault fault) throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).loras(1, 1).decode(5, 0.2).seed(1).build();
    SimPods pods = SimPods.start(sim, 4, "127.0.0.11", 8000);
    Path work = Files.createTempDirectory(dir, "run");
    Path disk = work.resolve("disk");
    Files.createDirectories(disk);
    if (onTmpfs) {
      exec("mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", disk.toString());
    }
    Path config = work.resolve("pool.yaml");
    Files.writeString(config, BatchRun.config(pods));
    int grpc = LoopbackPorts.free();
    int eppMetrics = LoopbackPorts.free();
    int servicePort = LoopbackPorts.free();
    Process[] epp = {EppChild.start(config, grpc, eppMetrics, work.resolve("epp-0.log"))};
    ProxySettings front = ProxySettings.defaults().withListener("127.0.0.1", LoopbackPorts.free())
        .withEpp("127.0.0.1", grpc);
    DevProxy[] proxy = {DevProxy.start(front)};
    Path serviceLog = work.resolve("service.log");
    Process service = startService(servicePort, eppMetrics, front.port(), disk.resolve("batch.db"),
        serviceLog);
    long start = System.nanoTime();
    try (BatchClient client = new BatchClient("http://127.0.0.1:" + servicePort)) {
      awaitUp(servicePort);
      String batch = client.create(client.upload("in.jsonl", BatchRun.batchFile(lines, 1)), "/v1/chat/completions");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (completed(client, batch) < lines / 4 && System.nanoTime() < deadline) {
        Thread.sleep(50); // polling a condition with a deadline
      }
      System.out.printf("  %s: %d of %d lines done; the fault begins%n", name, completed(client, batch), lines);
      fault.inject(new Env(work, config, grpc, eppMetrics, servicePort, epp, proxy, front, disk));
      System.out.printf("  %s: healed%n", name);
      JsonNode b = client.awaitDone(batch, Duration.ofSeconds(600));
      Map<String, Integer> perId = new HashMap<>();
      int out = BatchCrashRun.count(client, b.path("output_file_id"), perId);
      BatchCrashRun.count(client, b.path("error_file_id"), perId);
      long duplicated = perId.values().stream().filter(n -> n > 1).count();
      JsonNode counts = b.path("request_counts");
      long served = PoolStats.of(pods).requestsByPod().values().stream().mapToLong(Long::longValue).sum();
      return String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %d | %s | %.0f |%n", name, lines,
          counts.path("completed").asInt(), counts.path("failed").asInt(), served, out, perId.size(), duplicated,
          faultLog(serviceLog), (System.nanoTime() - start) / 1e9);
    } finally {
      service.destroy();
      service.waitFor(10, TimeUnit.SECONDS);
      proxy[0].close();
      epp[0].destroy();
      epp[0].waitFor(30, TimeUnit.SECONDS);
      pods.close();
      if (onTmpfs) {
        exec("umount", disk.toString());
      }
    }
  }

  /** 200 batches of 20 lines on one file, and the file deleted as soon as they exist. */
  private static String deleteUnder200(Path dir) throws Exception {
    SimConfig sim = SimConfig.builder().adapters(List.of()).loras(1, 1).decode(5, 0.2).seed(1).build();
    SimPods pods = SimPods.start(sim, 4, "127.0.0.11", 8000);
    Path work = Files.createTempDirectory(dir, "delete");
    Path config = work.resolve("pool.yaml");
    Files.writeString(config, BatchRun.config(pods));
    int grpc = LoopbackPorts.free();
    int eppMetrics = LoopbackPorts.free();
    int servicePort = LoopbackPorts.free();
    Process epp = EppChild.start(config, grpc, eppMetrics, work.resolve("epp.log"));
    ProxySettings front = ProxySettings.defaults().withListener("127.0.0.1", LoopbackPorts.free())
        .withEpp("127.0.0.1", grpc);
    DevProxy proxy = DevProxy.start(front);
    Path serviceLog = work.resolve("service.log");
    Process service = startService(servicePort, eppMetrics, front.port(), work.resolve("batch.db"), serviceLog);
    long start = System.nanoTime();
    try (BatchClient client = new BatchClient("http://127.0.0.1:" + servicePort);
        HttpClient http = HttpClient.newHttpClient()) {
      awaitUp(servicePort);
      String file = client.upload("in.jsonl", BatchRun.batchFile(20, 2));
      List<String> batches = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        batches.add(client.create(file, "/v1/chat/completions"));
      }
      HttpResponse<String> delete = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + servicePort
          + "/v1/files/" + file)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
      String answer = delete.statusCode() + " " + JSON.readTree(delete.body()).at("/error/code").asText();
      Map<String, Integer> statuses = new java.util.TreeMap<>();
      int completed = 0;
      int failed = 0;
      for (String b : batches) {
        JsonNode done = client.awaitDone(b, Duration.ofSeconds(300));
        statuses.merge(done.path("status").asText(), 1, Integer::sum);
        completed += done.path("request_counts").path("completed").asInt();
        failed += done.path("request_counts").path("failed").asInt();
      }
      long served = PoolStats.of(pods).requestsByPod().values().stream().mapToLong(Long::longValue).sum();
      return String.format(Locale.ROOT, "| input file deleted under 200 new batches (DELETE answered %s; batches "
          + "%s) | %d | %d | %d | %d | – | – | – | %s | %.0f |%n", answer, statuses, 200 * 20, completed, failed,
          served, faultLog(serviceLog), (System.nanoTime() - start) / 1e9);
    } finally {
      service.destroy();
      service.waitFor(10, TimeUnit.SECONDS);
      proxy.close();
      epp.destroy();
      epp.waitFor(30, TimeUnit.SECONDS);
      pods.close();
    }
  }

  private static void proxyOutage(Env env) throws Exception {
    env.proxy()[0].close();
    Thread.sleep(30_000); // the outage's length is the fault
    env.proxy()[0] = DevProxy.start(env.proxySettings());
  }

  private static void eppRestart(Env env) throws Exception {
    env.epp()[0].destroy(); // SIGTERM: the EPP drains, as in a rolling restart
    env.epp()[0].waitFor(60, TimeUnit.SECONDS);
    env.epp()[0] = EppChild.start(env.config(), env.grpcPort(), env.eppMetricsPort(), env.dir().resolve("epp-1.log"));
  }

  /** Fills the store's tmpfs until a write fails, waits until /ready says 503, then frees it; five times. */
  private static void fillDisk(Env env) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      for (int i = 0; i < 5; i++) {
        Path filler = env.disk().resolve("filler");
        try (OutputStream out = Files.newOutputStream(filler)) {
          byte[] mb = new byte[1 << 20];
          while (true) {
            out.write(mb);
          }
        } catch (IOException full) {
          // no space left: the store's next write that needs room fails
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int ready = 200;
        while (ready == 200 && System.nanoTime() < deadline) {
          ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + env.servicePort() + "/ready"))
              .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
          Thread.sleep(100); // polling a condition with a deadline
        }
        System.out.printf("    disk full %d: /ready %d%n", i + 1, ready);
        Thread.sleep(2_000); // the store stays full this long
        Files.delete(filler);
        while (ready != 200 && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(30)) {
          ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + env.servicePort() + "/ready"))
              .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
          Thread.sleep(100); // polling a condition with a deadline
        }
        System.out.printf("    disk freed %d: /ready %d%n", i + 1, ready);
        Thread.sleep(1_000); // a second of work between two faults
      }
    }
  }

  /** The service's WARN lines, grouped by their first words: how many lines the fault cost the log. */
  private static String faultLog(Path log) throws IOException {
    Map<String, Integer> kinds = new java.util.LinkedHashMap<>();
    for (String line : Files.readAllLines(log)) {
      int at = line.indexOf(" WARN ");
      if (at >= 0) {
        String text = line.substring(at + 6).replaceAll("\\d+", "N");
        kinds.merge(text.length() > 70 ? text.substring(0, 70) + "…" : text, 1, Integer::sum);
      }
    }
    List<String> out = new ArrayList<>();
    kinds.forEach((k, n) -> out.add(n + " × `" + k.replace("|", "/") + "`"));
    return out.isEmpty() ? "none" : String.join("<br>", out);
  }

  private static int completed(BatchClient client, String batch) throws Exception {
    return client.batch(batch).path("request_counts").path("completed").asInt();
  }

  private static Process startService(int port, int eppMetrics, int frontPort, Path db, Path log) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
        "io.llmgw.batch.BatchCommand", "--port", Integer.toString(port), "--store", "sqlite:" + db,
        "--epp", "127.0.0.1:" + eppMetrics, "--gateway", "http://127.0.0.1:" + frontPort, "--slots-per-pod", "64")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void awaitUp(int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (HttpClient http = HttpClient.newHttpClient()) {
      while (true) {
        try {
          if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/batches")).build(),
              HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
        Thread.sleep(200); // the service is still starting
      }
    }
  }

  private static boolean canMountTmpfs(Path dir) {
    Path probe = dir.resolve("tmpfs-probe");
    try {
      Files.createDirectories(probe);
      exec("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe.toString());
      exec("umount", probe.toString());
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static void exec(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + ": " + out);
    }
  }
}
