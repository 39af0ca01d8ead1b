package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** The default requirements of a model-less route; requests override them with x-llmgw-* headers. */
public record RequirementsSpec(
    @Pattern(CrdNames.DURATION_PATTERN)
    @JsonPropertyDescription("Longest acceptable time to first token, e.g. 2s.")
    String maxLatency,
    @Min(0) @Max(1)
    @JsonPropertyDescription("Lowest acceptable declared accuracy.")
    Double minAccuracy,
    @Min(0)
    @JsonPropertyDescription("Highest acceptable price per 1,000 tokens.")
    Double maxCostPer1kTokens) {}
// @formatter:on
