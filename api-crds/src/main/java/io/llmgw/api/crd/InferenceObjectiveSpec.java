package io.llmgw.api.crd;

import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/** {@code spec} of an InferenceObjective. */
public record InferenceObjectiveSpec(
    @Min(-1_000_000) @Max(1_000_000) Integer priority,
    @Required ObjectRef poolRef) {}
