package io.llmgw.cli;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real Envoy in front, when one is installed: {@code envoy -c envoy-config/envoy.yaml} listens on :8080 and calls
 * the EPP on its default ports, exactly as in production.
 */
final class EnvoyProcess implements AutoCloseable {
  private final Process process;

  private EnvoyProcess(Process process) {
    this.process = process;
  }

  static Path onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "envoy");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  static EnvoyProcess start(Path envoy, Path examplesDir) throws Exception {
    Path bootstrap = (examplesDir == null ? Path.of("examples") : examplesDir).resolveSibling("envoy-config")
        .resolve("envoy.yaml");
    Process p = new ProcessBuilder(envoy.toString(), "-c", bootstrap.toString(), "--log-level", "warn")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline && p.isAlive()) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", 8080), 200);
        return new EnvoyProcess(p);
      } catch (IOException notYet) {
        Thread.sleep(100); // polling the listener with a deadline
      }
    }
    p.destroyForcibly();
    throw new IllegalStateException("envoy did not open 127.0.0.1:8080 within 20 s (exit "
        + (p.isAlive() ? "-" : p.exitValue()) + "); rerun with --no-envoy to use the dev proxy");
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
