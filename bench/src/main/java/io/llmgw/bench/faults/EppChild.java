package io.llmgw.bench.faults;

import io.llmgw.api.tls.ServerTls;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An EPP in a JVM of its own, for runs that SIGTERM and SIGKILL it: file mode over {@code CONFIG} with fallbacks named
 * (the dev proxy walks them), ext_proc on {@code GRPC_PORT}, and on SIGTERM the same drain as {@code llmgw serve}.
 * Usage: CONFIG GRPC_PORT DRAIN_MS GRACE_MS [TLS_CERT TLS_KEY CLIENT_CA].
 */
public final class EppChild {
  /** The metrics port to bind instead of an ephemeral one, as a system property of the child. */
  private static final String METRICS_PORT = "llmgw.epp.metricsPort";

  private EppChild() {}

  /**
   * One on fixed ext_proc and metrics ports (so a client of {@code /admin/load} finds it again after a restart), with
   * a 1.5 s drain and 20 s grace.
   */
  public static Process start(Path config, int grpcPort, int metricsPort, Path log) throws Exception {
    return launch(config, grpcPort, Duration.ofMillis(1500), Duration.ofSeconds(20), log,
        List.of("-D" + METRICS_PORT + "=" + metricsPort), List.of());
  }

  public static void main(String[] args) throws Exception {
    EppSettings s = EppSettings.defaults(Path.of(args[0])).onLoopbackEphemeralPorts();
    s = s.withListen(s.listen().on("127.0.0.1", Integer.parseInt(args[1]), 0, Integer.getInteger(METRICS_PORT, 0))
        .withStopping(Duration.ofMillis(Long.parseLong(args[2])), Duration.ofMillis(Long.parseLong(args[3]))));
    if (args.length > 6) {
      s = s.withListen(s.listen().withTls(new ServerTls(Path.of(args[4]), Path.of(args[5]), Path.of(args[6]),
          Duration.ofSeconds(1)), false));
    }
    s = s.withRequests(s.requests().withDestinationFallbacks(true));
    Epp epp = Epp.start(s, Clock.systemUTC());
    Runtime.getRuntime().addShutdownHook(new Thread(epp::drainAndClose, "epp-drain"));
    System.out.println("EPP_READY metrics=" + epp.metricsPort());
    epp.awaitTermination();
  }

  /** Starts one in a child JVM on this JVM's class path; returns once it listens (30 s at most). */
  public static Process start(Path config, int grpcPort, Duration drain, Duration grace, Path log, List<String> tls)
      throws Exception {
    return launch(config, grpcPort, drain, grace, log, List.of(), tls);
  }

  private static Process launch(Path config, int grpcPort, Duration drain, Duration grace, Path log,
      List<String> jvmFlags, List<String> tls) throws Exception {
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new java.util.ArrayList<>(List.of(javaBin));
    // the flags this JVM was given for native access and Unsafe (scripts/jvm-flags), so the child warns no more than it
    java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--enable-native-access") || a.startsWith("--sun-misc-unsafe-memory-access"))
        .forEach(cmd::add);
    cmd.addAll(jvmFlags);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), EppChild.class.getName(), config.toString(),
        Integer.toString(grpcPort), Long.toString(drain.toMillis()),
        Long.toString(grace.toMillis())));
    cmd.addAll(tls);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!java.nio.file.Files.readString(log).contains("EPP_READY")) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("the EPP child did not start; its log: " + java.nio.file.Files.readString(log));
      }
      Thread.sleep(50); // polling a child's log with a deadline
    }
    return p;
  }
}
