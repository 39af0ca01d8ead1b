package io.llmgw.bench;

/** A process's CPU time as Linux keeps it in {@code /proc/<pid>/stat}. */
public final class ProcessCpu {
  /** Linux's USER_HZ, the unit of a stat line's times, on every platform these runs use. */
  private static final long TICKS_PER_SECOND = 100;

  private ProcessCpu() {}

  /** Fields 14 and 15 (utime, stime) of a {@code stat} line in milliseconds; the name in parentheses may hold spaces. */
  public static long millis(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / TICKS_PER_SECOND;
  }

  /** Field 15 (stime) of a {@code stat} line in milliseconds: the kernel's time on the process's behalf. */
  public static long systemMillis(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[12]) * 1000 / TICKS_PER_SECOND;
  }

  /** This process's CPU time so far, in milliseconds. */
  public static long selfMillis() throws java.io.IOException {
    return millis(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat")));
  }
}
