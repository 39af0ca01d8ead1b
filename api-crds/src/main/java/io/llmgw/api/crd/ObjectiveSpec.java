package io.llmgw.api.crd;

import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** A latency objective: {@code type} at {@code latency.quantile} must stay within {@code latency.value}. */
public record ObjectiveSpec(@Required ObjectiveType type, @Required Latency latency) {

  public enum ObjectiveType { OutputTokenLatency, TimeToFirstToken }

  public record Latency(@Required @Pattern(CrdNames.DURATION_PATTERN) String value, Quantile quantile) {}

  public record Quantile(@Min(1) @Max(100) Integer numerator) {}
}
// @formatter:on
