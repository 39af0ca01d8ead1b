package io.llmgw.api.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.List;

// @formatter:off (Eclipse puts a record component's annotations on one line, past 120 columns)
/** {@code spec} of a TenantBudget: the tenant is the object's name. */
public record TenantBudgetSpec(
    @Min(0) @Max(1_000_000_000_000L)
    @JsonPropertyDescription("Tokens (prompt and output) the tenant may spend in any 60 s; absent: no limit, 0: none.")
    Long tokensPerMinute,
    @Min(0) @Max(1_000_000_000_000L)
    @JsonPropertyDescription("Tokens the tenant may spend in any 24 h; absent: no limit, 0: none.")
    Long tokensPerDay,
    @Min(1) @Max(1_000_000)
    @JsonPropertyDescription("Requests of the tenant in flight at once; absent: no limit.")
    Integer maxConcurrentRequests,
    @JsonPropertyDescription("The LLMRoutes (by name, in this namespace) the tenant may call; absent: every route.")
    List<String> routes,
    @Min(-1_000_000) @Max(1_000_000)
    @JsonPropertyDescription("The priority band the tenant's requests run in, instead of their route's.")
    Integer priority,
    @Min(1) @Max(1_000_000)
    @JsonPropertyDescription("The tenant's share of a priority band against other tenants, by tokens (default 1).")
    Integer weight,
    @JsonPropertyDescription("A request the budget cannot take now: Queue (wait for the window, up to the flow-control"
        + " TTL), Demote (run at demotedPriority) or Refuse (429 with Retry-After).")
    OverBudgetType overBudget,
    @Min(-1_000_000) @Max(1_000_000)
    @JsonPropertyDescription("Where Demote puts a request over budget (default -1: sheddable).")
    Integer demotedPriority,
    @Min(1) @Max(10_000_000)
    @JsonPropertyDescription("What a request without max_tokens reserves for its output (default 1024); its usage "
        + "settles it.")
    Integer defaultOutputTokens) {
  public enum OverBudgetType { Queue, Demote, Refuse }
}
// @formatter:on
