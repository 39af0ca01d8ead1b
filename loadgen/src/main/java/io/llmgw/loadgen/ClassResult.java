package io.llmgw.loadgen;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/** One request class's share of a run: how its requests ended, their time to first token, and each success. */
public final class ClassResult {
  /** A successful request: its time to first token, the variant the gateway named (or null), its token usage. */
  public record Completed(double ttftMs, String variant, long promptTokens, long completionTokens) {}

  final Histogram ttft = new Histogram(600_000_000L, 3);
  final Map<String, Integer> outcomes = new TreeMap<>();
  final List<Completed> completed = new ArrayList<>();
  int sent;

  public int sent() {
    return sent;
  }

  public int ok() {
    return completed.size();
  }

  public int count(String outcome) {
    return outcomes.getOrDefault(outcome, 0);
  }

  public Map<String, Integer> outcomes() {
    return outcomes;
  }

  public List<Completed> completed() {
    return completed;
  }

  /** Time to first token at quantile {@code q} (0..100) in milliseconds. */
  public double ttftMs(double q) {
    return ttft.getTotalCount() == 0 ? Double.NaN : ttft.getValueAtPercentile(q) / 1000.0;
  }
}
