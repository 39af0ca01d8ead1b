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
    assertThat(driven).contains("EPP rate 75 % of the null server's").contains("2.00× the null's");
  }

  private static ExchangeDriver.Window window(String server, long perSecond, double cpuMsPerExchange) {
    var h = new org.HdrHistogram.Histogram(3);
    h.recordValue(1_000);
    long exchanges = perSecond * 10;
    return new ExchangeDriver.Window(server, exchanges, 0, 10, h, h, Math.round(cpuMsPerExchange * exchanges), 0, 1);
  }
}
