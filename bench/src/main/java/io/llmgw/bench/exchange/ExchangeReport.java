package io.llmgw.bench.exchange;

import java.util.List;

/** The exchange benchmark's table: one row per window, then the EPP against the null server over all windows. */
final class ExchangeReport {
  private ExchangeReport() {}

  static String render(ExchangeShape shape, int streams, int connections, List<ExchangeDriver.Window> windows,
      boolean smallShape) {
    StringBuilder t = new StringBuilder();
    t.append(String.format("%n%s: %s; %d streams over %d connections%n%n", shape.name(), shape.describe(), streams,
        connections));
    t.append("| server | exchanges/s | routing answer p50 / p99 (µs) | whole exchange p50 / p99 (µs) | server CPU per "
        + "exchange (ms) | of which JIT compiler (ms) | server CPU (cores) | client CPU per exchange (ms) | machine busy | "
        + "errors |\n");
    t.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ExchangeDriver.Window w : windows) {
      t.append(String.format("| %s | %,.0f | %d / %d | %d / %d | %.3f | %.3f | %.3f | %.3f | %.0f %% | %d |%n",
          w.server(), w.rate(), w.answer().getValueAtPercentile(50), w.answer().getValueAtPercentile(99),
          w.whole().getValueAtPercentile(50), w.whole().getValueAtPercentile(99), w.serverCpuPerExchange(),
          w.serverJitPerExchange(), w.serverCpuMillis() / w.seconds() / 1000, w.clientCpuPerExchange(),
          100 * w.machineBusy(), w.errors()));
    }
    List<ExchangeDriver.Window> nulls = windows.stream().filter(w -> w.server().equals("null server")).toList();
    List<ExchangeDriver.Window> epps = windows.stream().filter(w -> w.server().equals("EPP")).toList();
    if (epps.isEmpty()) {
      return t.toString();
    }
    double nullRate = median(nulls.stream().mapToDouble(ExchangeDriver.Window::rate).toArray());
    if (smallShape && nullRate < ExchangeBench.MIN_NULL_SMALL_RATE) {
      t.append(String.format("%nThe client drove the null server to %,.0f small requests/s only (at least %,d needed): "
          + "the client set the pace, so no ratio is reported.%n", nullRate, ExchangeBench.MIN_NULL_SMALL_RATE));
      return t.toString();
    }
    double eppRate = median(epps.stream().mapToDouble(ExchangeDriver.Window::rate).toArray());
    double nullCpu = median(nulls.stream().mapToDouble(ExchangeDriver.Window::serverCpuPerExchange).toArray());
    double eppCpu = median(epps.stream().mapToDouble(ExchangeDriver.Window::serverCpuPerExchange).toArray());
    double nullP99 = median(nulls.stream().mapToDouble(w -> w.answer().getValueAtPercentile(99)).toArray());
    double eppP99 = median(epps.stream().mapToDouble(w -> w.answer().getValueAtPercentile(99)).toArray());
    double nullJit = median(nulls.stream().mapToDouble(ExchangeDriver.Window::serverJitPerExchange).toArray());
    double eppJit = median(epps.stream().mapToDouble(ExchangeDriver.Window::serverJitPerExchange).toArray());
    t.append(String.format("%nMedians: EPP rate %.0f %% of the null server's; CPU per exchange %.2f× the null's "
        + "(%.3f against %.3f ms); routing-answer p99 %.2f× the null's.%n", 100 * eppRate / nullRate, eppCpu / nullCpu,
        eppCpu, nullCpu, eppP99 / nullP99));
    if (eppJit > 0.05 * eppCpu) {
      t.append(String.format("The EPP was still compiling in its windows (%.3f ms of its CPU per exchange, the null "
          + "server %.3f): a longer --warmup measures the compiled code.%n", eppJit, nullJit));
    }
    return t.toString();
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    java.util.Arrays.sort(v);
    return v.length == 0 ? Double.NaN
        : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
