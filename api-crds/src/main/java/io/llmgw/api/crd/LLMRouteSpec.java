package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** {@code spec} of an LLMRoute: the gateways it attaches to, the pools that serve it, and the use case. */
public record LLMRouteSpec(
    @JsonPropertyDescription("Gateways this route attaches to; informational for the Endpoint Picker.")
    List<ObjectRef> parentRefs,
    @Required @Size(min = 1, max = 16)
    @JsonPropertyDescription("InferencePools in this namespace that serve the route, in order of preference.")
    List<ObjectRef> backendRefs,
    @Required
    @JsonPropertyDescription("The model name clients send, its priority, objectives and versioned targets.")
    AdapterSpec adapter) {}
// @formatter:on
