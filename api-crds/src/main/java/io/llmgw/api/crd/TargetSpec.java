package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** One concrete adapter version behind a route. */
public record TargetSpec(
    @Required @Size(min = 1, max = 253) String name,
    @Min(1) @Max(1_000_000) Integer weight,
    @JsonPropertyDescription("Where the adapter's weights live, e.g. hf://org/adapter or s3://bucket/path.")
    String source) {}
// @formatter:on
