package io.llmgw.scraper;

import java.util.List;
import java.util.Map;

/** The wanted samples of one scrape, by metric name, and how many lines could not be parsed. */
public record ParsedMetrics(Map<String, List<Sample>> byName, int skippedLines) {
  public List<Sample> get(String name) {
    return byName.getOrDefault(name, List.of());
  }

  /** Sum over all series of the metric (a server may label per model), or NaN when absent. */
  public double sum(String name) {
    List<Sample> s = byName.get(name);
    if (s == null || s.isEmpty()) {
      return Double.NaN;
    }
    double total = 0;
    for (Sample x : s) {
      total += x.value();
    }
    return total;
  }

  /** Sum over the series whose label has the given value, or NaN when none. */
  public double sumWhere(String name, String label, String value) {
    double total = 0;
    boolean found = false;
    for (Sample x : get(name)) {
      if (value.equals(x.label(label))) {
        total += x.value();
        found = true;
      }
    }
    return found ? total : Double.NaN;
  }
}
