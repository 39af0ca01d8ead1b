package io.llmgw.bench.exchange;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's CPU counters from {@code /proc/stat}: how busy all cores were between two readings. */
record MachineCpu(long busy, long total) {
  static MachineCpu now() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
    long total = 0;
    for (int i = 1; i < f.length; i++) {
      total += Long.parseLong(f[i]);
    }
    long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
    return new MachineCpu(total - idle, total);
  }

  /** Fraction of all cores' time spent busy since {@code before}. */
  double busySince(MachineCpu before) {
    long t = total - before.total;
    return t == 0 ? 0 : (double) (busy - before.busy) / t;
  }
}
