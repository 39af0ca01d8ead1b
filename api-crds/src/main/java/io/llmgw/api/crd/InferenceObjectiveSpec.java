package io.llmgw.api.crd;

import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** {@code spec} of an InferenceObjective. */
public record InferenceObjectiveSpec(
    @Min(-1_000_000) @Max(1_000_000) Integer priority,
    @Required ObjectRef poolRef) {}
// @formatter:on
