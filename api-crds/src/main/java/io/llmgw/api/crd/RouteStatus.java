package io.llmgw.api.crd;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** {@code status} of an LLMRoute: conditions Accepted, ResolvedRefs and Ready, written by the leading EPP replica. */
public record RouteStatus(List<Condition> conditions) {}
