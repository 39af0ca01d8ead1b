package io.llmgw.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whether the machine was too busy for the quickstart's latencies to mean much: its one-minute load average against
 * its processors (Linux's {@code /proc/loadavg}). A newcomer who saw TTFT p50 4.6 s on a busy machine read it as the
 * gateway's.
 */
final class MachineLoad {
  /** Runnable threads per processor past which the figures are mostly waiting for a CPU. */
  static final double BUSY_PER_CPU = 1.5;

  private MachineLoad() {}

  /** A line saying the machine was busy, or null when it was not (or cannot be told). */
  static String busyNote() {
    return note(loadAverage(), Runtime.getRuntime().availableProcessors());
  }

  static String note(double load, int cpus) {
    if (Double.isNaN(load) || load <= BUSY_PER_CPU * cpus) {
      return null;
    }
    return String.format(Locale.ROOT, "the machine was busy (load %.1f on %d processors, this demonstration "
        + "included): the latencies above include waiting for a CPU, and say more about the machine than the gateway",
        load, cpus);
  }

  private static double loadAverage() {
    try (var in = Files.newBufferedReader(Path.of("/proc/loadavg"))) {
      return Double.parseDouble(in.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException unknown) {
      return Double.NaN;
    }
  }
}
