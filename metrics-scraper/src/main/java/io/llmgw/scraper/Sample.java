package io.llmgw.scraper;

import java.util.Map;

/** One Prometheus sample line: metric name, labels, value. */
public record Sample(String name, Map<String, String> labels, double value) {
  public String label(String key) {
    return labels.get(key);
  }
}
