package io.llmgw.batch.store;

import io.llmgw.api.LoopbackPorts;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of this machine on a loopback port, for tests and benches: started with its data in
 * {@code dir}, optionally with the append-only file on (so a restart keeps what was acknowledged), killed on close.
 */
public final class LocalRedis implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final boolean appendOnly;
  private Process process;

  private LocalRedis(Path dir, int port, boolean appendOnly) {
    this.dir = dir;
    this.port = port;
    this.appendOnly = appendOnly;
  }

  /** True when {@code redis-server} is on the PATH. */
  public static boolean available() {
    try {
      Process p = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  public static LocalRedis start(Path dir, boolean appendOnly) throws IOException, InterruptedException {
    LocalRedis r = new LocalRedis(dir, LoopbackPorts.free(), appendOnly);
    r.startProcess();
    return r;
  }

  private void startProcess() throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--dir", dir.toString(), "--save", "", "--daemonize", "no", "--protected-mode", "yes"));
    if (appendOnly) {
      cmd.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
    }
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("redis-" + port + ".log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IOException("redis-server did not start on 127.0.0.1:" + port + " (see " + dir + ")", e);
        }
        Thread.sleep(20); // polling a condition with a deadline
      }
    }
  }

  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** SIGKILLs the server and starts it again on the same port and directory. */
  public void restart() throws IOException, InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    startProcess();
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
