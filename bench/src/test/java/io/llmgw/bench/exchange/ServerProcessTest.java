package io.llmgw.bench.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServerProcessTest {
  @Test
  void cpuIsUserPlusSystemTimeWhateverTheCommandNameHolds() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 5000 0 3 0 1234 56 0 0 20 0 42 0 100 0 0";
    assertThat(ServerProcess.cpuMillis(stat)).as("(1234 + 56) ticks of 10 ms").isEqualTo(12_900);
  }

  @Test
  void theReportRefusesARatioWhenTheClientCouldNotDriveTheNullServer() {
    var nullWindow = window("null server", 8_000, 0.05);
    var eppWindow = window("EPP", 6_000, 0.1);
    String report = ExchangeReport.render(ExchangeShape.small(), 32, 2, java.util.List.of(nullWindow, eppWindow), true);
    assertThat(report).contains("no ratio is reported").doesNotContain("Medians");
    String driven = ExchangeReport.render(ExchangeShape.small(), 32, 2,
        java.util.List.of(window("null server", 20_000, 0.03), window("EPP", 15_000, 0.06)), true);
    assertThat(driven).contains("EPP rate 75 % of the null server's").contains("2.00× the null's")
        .doesNotContain("still compiling");
    String compiling = ExchangeReport.render(ExchangeShape.small(), 32, 2,
        java.util.List.of(window("null server", 20_000, 0.03), window("EPP", 15_000, 0.06, 0.01)), true);
    assertThat(compiling).contains("still compiling in its windows (0.010 ms");
  }

  @Test
  void theJitCompilersCpuIsTheSumOfItsOwnThreads() throws Exception {
    String c2 = "77 (C2 CompilerThre) S 1 42 42 0 -1 0 0 0 0 0 300 20 0 0 20 0 42 0 100 0 0";
    String grpc = "78 (grpc-default-wo) S 1 42 42 0 -1 0 0 0 0 0 900 90 0 0 20 0 42 0 100 0 0";
    assertThat(ServerProcess.compilerThread(c2)).isTrue();
    assertThat(ServerProcess.compilerThread(grpc)).isFalse();
    long pid = ProcessHandle.current().pid();
    long all = ServerProcess.cpuMillis(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat")));
    assertThat(ServerProcess.compilerCpuMillis(pid)).as("this JVM's compiler threads: part of its CPU")
        .isBetween(0L, all);
  }

  private static ExchangeDriver.Window window(String server, long perSecond, double cpuMsPerExchange) {
    return window(server, perSecond, cpuMsPerExchange, 0);
  }

  private static ExchangeDriver.Window window(String server, long perSecond, double cpuMsPerExchange,
      double jitMsPerExchange) {
    var h = new org.HdrHistogram.Histogram(3);
    h.recordValue(1_000);
    long exchanges = perSecond * 10;
    return new ExchangeDriver.Window(server, exchanges, 0, 10, h, h, Math.round(cpuMsPerExchange * exchanges),
        Math.round(jitMsPerExchange * exchanges), 0, 1);
  }
}
