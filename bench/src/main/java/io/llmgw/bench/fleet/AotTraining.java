package io.llmgw.bench.fleet;

import io.llmgw.loadgen.ServeTraining;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Records the ahead-of-time cache the fleet's replicas start from, as the launcher does after a build: a JVM with the
 * replicas' flags runs {@link ServeTraining} and writes the cache when it exits. JDK 25 and later only: older JDKs have
 * no method profiles to keep, and the fleet runs without.
 */
final class AotTraining {
  private AotTraining() {}

  /** The cache, in {@code dir}; null on a JDK before 25. */
  static Path record(Path dir) throws Exception {
    if (Runtime.version().feature() < 25) {
      System.out.println("fleet: JDK " + Runtime.version().feature() + " keeps no method profiles; no AOT cache");
      return null;
    }
    Path cache = dir.resolve("replica.aot");
    Path log = dir.resolve("training.log");
    List<String> cmd = ReplicaProcess.java();
    cmd.addAll(List.of("-XX:AOTCacheOutput=" + cache, ServeTraining.class.getName()));
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean ended = p.waitFor(5, TimeUnit.MINUTES);
    if (!ended || p.exitValue() != 0 || !Files.isRegularFile(cache)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new IllegalStateException("the AOT training run " + (ended ? "ended with exit code " + p.exitValue()
          + (Files.isRegularFile(cache) ? "" : " and no cache") : "took more than 5 minutes") + "; its log: "
          + Files.readString(log));
    }
    System.out.printf("fleet: replicas start from an AOT cache of %d MB, recorded in %.0f s by %s%n",
        Files.size(cache) >> 20, (System.nanoTime() - start) / 1e9, ServeTraining.class.getSimpleName());
    return cache;
  }
}
