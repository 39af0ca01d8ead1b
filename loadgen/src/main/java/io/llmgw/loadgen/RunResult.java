package io.llmgw.loadgen;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one open-loop run measured on the client side: time to first token, time per output token and normalised
 * time per output token (microseconds), and how every request ended.
 */
public final class RunResult {
  final Histogram ttft = new Histogram(600_000_000L, 3);
  final Histogram tpot = new Histogram(600_000_000L, 3);
  /** GIE's normalised time per output token: end-to-end latency divided by output tokens. */
  final Histogram ntpot = new Histogram(600_000_000L, 3);
  final Map<String, Integer> outcomes = new TreeMap<>();
  final Map<String, Integer> okByModel = new TreeMap<>();
  final Map<String, ClassResult> byClass = new TreeMap<>();
  int sent;
  int ok;
  long completionTokens;
  double seconds;

  void outcome(String what) {
    outcomes.merge(what, 1, Integer::sum);
  }

  public int sent() {
    return sent;
  }

  public int ok() {
    return ok;
  }

  public int errors() {
    return sent - ok;
  }

  public Map<String, Integer> outcomes() {
    return outcomes;
  }

  /** Results per workload entry (model, or {@code model#class}). */
  public Map<String, ClassResult> byClass() {
    return byClass;
  }

  ClassResult classOf(String entry) {
    return byClass.computeIfAbsent(entry, e -> new ClassResult());
  }

  public Map<String, Integer> okByModel() {
    return okByModel;
  }

  public double throughput() {
    return ok / seconds;
  }

  public double tokensPerSecond() {
    return completionTokens / seconds;
  }

  /** Time to first token at quantile {@code q} (0..100), in milliseconds. */
  public double ttftMs(double q) {
    return ttft.getTotalCount() == 0 ? Double.NaN : ttft.getValueAtPercentile(q) / 1000.0;
  }

  public double tpotMs(double q) {
    return tpot.getTotalCount() == 0 ? Double.NaN : tpot.getValueAtPercentile(q) / 1000.0;
  }

  public double normalizedTpotMs(double q) {
    return ntpot.getTotalCount() == 0 ? Double.NaN : ntpot.getValueAtPercentile(q) / 1000.0;
  }

}
