package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** One variant of a model-less route. */
public record VariantSpec(
    @Required @Size(min = 1, max = 253)
    @JsonPropertyDescription("The model or adapter the pod serves; the request's model is rewritten to it.")
    String name,
    @Required @Size(min = 1, max = 253)
    @JsonPropertyDescription("One of the route's backendRefs: the pool that serves this variant.")
    String pool,
    @Required @Min(0) @Max(1)
    @JsonPropertyDescription("Declared quality, 0 to 1.")
    Double accuracy,
    @Required @Min(0)
    @JsonPropertyDescription("Declared price per 1,000 tokens.")
    Double costPer1kTokens,
    @JsonPropertyDescription("Where the adapter's weights live when it may be loaded on demand.")
    String source) {}
// @formatter:on
