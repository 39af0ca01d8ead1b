package io.llmgw.loadgen;

import java.util.List;
import picocli.CommandLine;

/**
 * A training run of the request path, for the JVM's ahead-of-time cache: {@code llmgw bench} over the chat workload,
 * once per shipped policy, through two EPP replicas that exchange state as a fleet's do, behind the dev proxy. On JDK
 * 25 the cache recorded from a run keeps the methods' execution profiles (JEP 515) beside the loaded classes, so a
 * replica started from it compiles its request path at once instead of after thousands of requests: what a replica
 * that sees an eighth of a fleet's traffic otherwise waits minutes for (bench/README.md, "A fleet of processes"). The
 * pods take 127.0.0.101 to .104, port 8000, their KV-cache events 5557: where they cannot listen, the run ends with
 * exit code 1 and the cache holds what ran before it. The prompts come from a seed of their own.
 */
public final class ServeTraining {
  /**
   * The {@code llmgw bench} arguments of the run. The pods decode ten times faster than the bench's, so that the
   * conversations' answers end within seconds: the EPP's paths are the same, its streams shorter.
   */
  public static final List<String> BENCH_ARGS = List.of("--workload", "chat", "--policies",
      "random,seed+session,scorers,precise", "--rates", "60", "--duration", "4", "--warmup", "0", "--pods", "4",
      "--first-ip", "127.0.0.101", "--epp-replicas", "2", "--decode-base-ms", "2", "--decode-per-seq-ms", "0.1",
      "--seed", "90210");

  private ServeTraining() {}

  /** Runs the training bench in this JVM; returns its exit code. */
  public static int run() {
    return new CommandLine(new BenchCommand()).execute(BENCH_ARGS.toArray(String[]::new));
  }

  public static void main(String[] args) {
    System.exit(run());
  }
}
