package io.llmgw.bench.fleet;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.bench.ProcessCpu;
import io.llmgw.extproc.peers.PeerLoop;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** One {@link FleetReplica} child: its address and ports (kept across a restart), its process, its CPU and metrics. */
final class ReplicaProcess {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  final String host;
  final int grpcPort;
  final int healthPort;
  final int metricsPort;
  private final Path log;
  /** The ahead-of-time cache the replica's JVM starts from, or null. */
  private final Path aotCache;
  private Process process;
  /** CPU of the processes this replica ran before its last restart. */
  private long pastCpuMillis;

  ReplicaProcess(String host, Path dir, Path aotCache) throws IOException {
    this.host = host;
    this.aotCache = aotCache;
    this.grpcPort = LoopbackPorts.free();
    this.healthPort = LoopbackPorts.free();
    this.metricsPort = LoopbackPorts.free();
    this.log = dir.resolve("replica-" + host + ".log");
  }

  /** A fresh shared secret for a fleet's replicas, in {@code dir}. */
  static Path newSecret(Path dir) throws IOException {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Files.writeString(dir.resolve("peers.secret"), HexFormat.of().formatHex(bytes));
  }

  String peerAddress() {
    return host + ":" + healthPort;
  }

  /**
   * A replica's JVM with this one's class path, up to the main class: its flags are those the ahead-of-time cache was
   * recorded with ({@link AotTraining}), which a JVM needs to use it.
   */
  static List<String> java() {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx384m", "-XX:+UseSerialGC"));
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--enable-native-access") || a.startsWith("--sun-misc-unsafe-memory-access"))
        .forEach(cmd::add);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    return cmd;
  }

  String grpcAddress() {
    return host + ":" + grpcPort;
  }

  /** Starts the child (again, after a kill, on the same address and ports); returns once it listens. */
  void start(Path config, String policy, List<String> peers, Path secret) throws Exception {
    List<String> cmd = java();
    if (aotCache != null) {
      cmd.add("-XX:AOTCache=" + aotCache);
    }
    cmd.addAll(List.of(FleetReplica.class.getName(), config.toString(),
        host, Integer.toString(grpcPort), Integer.toString(healthPort), Integer.toString(metricsPort), policy,
        peers.isEmpty() ? "-" : String.join(",", peers), secret.toString()));
    Files.deleteIfExists(log);
    Files.createFile(log);
    process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
        log.toFile())).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log).contains("FLEET_READY")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException("replica " + host + " did not start; its log: " + Files.readString(log));
      }
      Thread.sleep(50); // polling a child's log with a deadline
    }
  }

  /** SIGKILL: no drain, no goodbye to its peers. */
  void kill() throws Exception {
    pastCpuMillis = cpuMillis();
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  void stop() throws Exception {
    if (process != null) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** CPU time of this replica's processes so far (the live one read from /proc), in milliseconds. */
  long cpuMillis() {
    try {
      return pastCpuMillis + (process.isAlive() ? ProcessCpu.millis(Files.readString(Path.of("/proc/" + process
          .pid() + "/stat"))) : 0);
    } catch (IOException e) {
      return pastCpuMillis; // it died between the check and the read
    }
  }

  /**
   * CPU time of the live process's JIT compiler threads so far: a fresh JVM compiles for minutes on two busy cores,
   * which a replica that has run for hours no longer pays.
   */
  long jitMillis() {
    return threadMillis(name -> name.startsWith("C")); // "C1 CompilerThre", "C2 CompilerThre"
  }

  /** CPU time of the live process's peer exchange so far: its one thread ({@link PeerLoop#THREAD}). */
  long peerLoopMillis() {
    return threadMillis(name -> name.equals(PeerLoop.THREAD));
  }

  /** CPU time so far of the live process's threads whose name ({@code /proc/<pid>/task/<tid>/comm}) passes. */
  private long threadMillis(Predicate<String> named) {
    return perThread(t -> named.test(Files.readString(t.resolve("comm")).strip())
        ? ProcessCpu.millis(Files.readString(t.resolve("stat"))) : 0);
  }

  /**
   * Context switches of the live process's threads so far (voluntary and not, from each thread's status): on a virtual
   * machine each wake-up costs far more than the work it wakes for, so the count explains a background CPU figure.
   */
  long switches() {
    return perThread(t -> {
      long sum = 0;
      for (String line : Files.readAllLines(t.resolve("status"))) {
        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
          sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      return sum;
    });
  }

  /** A figure read from one thread's {@code /proc/<pid>/task/<tid>} directory. */
  private interface ThreadFigure {
    long of(Path task) throws IOException;
  }

  /** The figure summed over the live process's threads; 0 once the process has ended. */
  private long perThread(ThreadFigure figure) {
    long sum = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + process.pid() + "/task"))) {
      for (Path t : tasks) {
        try {
          sum += figure.of(t);
        } catch (IOException gone) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0; // the process ended meanwhile
    }
    return sum;
  }

  /** A metric's value from the replica's /metrics, or NaN when absent or unreachable. */
  double metric(String name) {
    try {
      String text = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + metricsPort + "/metrics"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
      double sum = Double.NaN;
      for (String line : text.split("\n")) {
        if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
          double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          sum = Double.isNaN(sum) ? v : sum + v;
        }
      }
      return sum;
    } catch (IOException | InterruptedException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
