package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** {@code spec.adapter} of an LLMRoute. */
public record AdapterSpec(
    @Required @Size(min = 1, max = 253)
    @JsonPropertyDescription("The model name clients put in the request body: a base model or an adapter.")
    String name,
    @Min(-1_000_000) @Max(1_000_000)
    @JsonPropertyDescription("Higher is more important; below zero the route is sheddable when the pool is saturated.")
    Integer priority,
    @Size(max = 4)
    List<ObjectiveSpec> objectives,
    @Size(max = 16)
    @JsonPropertyDescription("Concrete adapter versions and their traffic weights; empty means the name itself is served.")
    List<TargetSpec> targets,
    @JsonPropertyDescription("When no pod is predicted to meet the objectives: Queue (wait in the EPP) or Shed "
        + "(429 at once; sheddable routes only).")
    ObjectiveFallbackType objectiveFallback,
    @Size(max = 8)
    @JsonPropertyDescription("Model-less route: the EPP picks the cheapest variant that meets the requirements.")
    List<VariantSpec> variants,
    RequirementsSpec requirements) {

  public enum ObjectiveFallbackType { Queue, Shed }
}
// @formatter:on
