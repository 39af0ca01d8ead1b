package io.llmgw.bench.exchange;

import io.llmgw.api.LoopbackPorts;
import io.llmgw.bench.ProcessCpu;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An ext_proc server under measurement, in a JVM of its own: the client never shares a process with it, and its CPU
 * time is read from {@code /proc/<pid>/stat} (user + system, all threads), which does not depend on how the machine's
 * cores were shared during the window.
 */
final class ServerProcess implements AutoCloseable {
  /** USER_HZ: the unit of utime and stime in {@code /proc/<pid>/stat}; 100 on every Linux this runs on. */

  private final String name;
  private final Process process;
  private final int port;
  private final Path log;

  private ServerProcess(String name, Process process, int port, Path log) {
    this.name = name;
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** The null server: echoes everything, routes every request to {@code destination}. */
  static ServerProcess nullServer(String destination, Path dir, List<String> jvmFlags) throws Exception {
    Path log = Files.createTempFile(dir, "null-server-", ".log");
    List<String> cmd = java();
    cmd.addAll(profiled(jvmFlags, log));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NullServerMain.class.getName(), destination));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    String ready = awaitLine(p, log, "READY ");
    return new ServerProcess("null server", p, Integer.parseInt(ready.substring("READY ".length()).trim()), log);
  }

  /** {@code llmgw serve} from its jar, exactly as the launcher runs it, on free loopback ports. */
  static ServerProcess epp(Path jar, Path config, List<String> flags, Path dir, List<String> jvmFlags)
      throws Exception {
    Path log = Files.createTempFile(dir, "epp-", ".log");
    int grpc = LoopbackPorts.free();
    List<String> cmd = java();
    cmd.addAll(profiled(jvmFlags, log));
    cmd.addAll(List.of("-XX:+ExitOnOutOfMemoryError", "-jar", jar.toString(), "serve", "--config", config.toString(),
        "--bind", "127.0.0.1", "--grpc-port", Integer.toString(grpc), "--health-port",
        Integer.toString(LoopbackPorts.free()), "--metrics-port", Integer.toString(LoopbackPorts.free())));
    cmd.addAll(flags);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    awaitLine(p, log, "ext_proc on");
    return new ServerProcess("EPP", p, grpc, log);
  }

  String name() {
    return name;
  }

  int port() {
    return port;
  }

  /** CPU time the process has used so far, user and system, in milliseconds. */
  long cpuMillis() throws IOException {
    return cpuMillis(Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat")));
  }

  /** Of {@link #cpuMillis}, the time spent in the kernel on the process's behalf (system calls). */
  long systemCpuMillis() throws IOException {
    return ProcessCpu.systemMillis(Files.readString(Path.of("/proc", Long.toString(process.pid()),
        "stat")));
  }

  /**
   * CPU time the JIT compiler's threads (HotSpot's {@code C1}/{@code C2 CompilerThread}s) have used so far: a server
   * still compiling in the window spends it on top of the exchanges, and it goes once the code is compiled. A compiler
   * thread HotSpot retired meanwhile takes its time out of this sum, so a window's difference is a lower bound.
   */
  long compilerCpuMillis() throws IOException {
    return compilerCpuMillis(process.pid());
  }

  static long compilerCpuMillis(long pid) throws IOException {
    long sum = 0;
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException exited) {
          continue; // the thread ended between the listing and the read
        }
        if (compilerThread(stat)) {
          sum += cpuMillis(stat);
        }
      }
    }
    return sum;
  }

  /** Whether a thread's {@code stat} line is a HotSpot compiler thread's (its name, cut to 15 characters). */
  static boolean compilerThread(String stat) {
    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  static long cpuMillis(String stat) {
    return ProcessCpu.millis(stat);
  }

  /** Whether the process still runs; a server that died mid-run invalidates the run. */
  void requireAlive() throws IOException {
    if (!process.isAlive()) {
      throw new IllegalStateException("the " + name + " exited (" + process.exitValue() + "); its log: "
          + Files.readString(log));
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The flags this JVM runs with for native access and Unsafe (scripts/jvm-flags), so children start as it did. */
  private static List<String> java() {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--enable-native-access") || a.startsWith("--sun-misc-unsafe-memory-access"))
        .forEach(cmd::add);
    return cmd;
  }

  /** The servers' extra JVM flags; {@code {name}} in one (a profiler's output file) becomes the log's name. */
  private static List<String> profiled(List<String> jvmFlags, Path log) {
    String name = log.toString().replaceFirst("\\.log$", "");
    return jvmFlags.stream().map(f -> f.replace("{name}", name)).toList();
  }

  private static String awaitLine(Process p, Path log, String marker) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      for (String line : Files.readAllLines(log)) {
        if (line.contains(marker)) {
          return line;
        }
      }
      if (!p.isAlive() || System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("the server did not start; its log: " + Files.readString(log));
      }
      Thread.sleep(100); // polling a child's log, with a deadline
    }
  }
}
