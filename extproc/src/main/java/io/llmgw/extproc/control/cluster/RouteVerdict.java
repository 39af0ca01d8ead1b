package io.llmgw.extproc.control.cluster;

import java.util.List;

/**
 * What the control loop concluded about one LLMRoute, before pod health is known: whether it is accepted (valid and
 * the first route for its model name), and which of its pools could not be resolved.
 *
 * @param problem why it is not accepted (null when accepted)
 * @param pools the names of the pools it sends to (empty when it is not valid)
 * @param models what a ready pod must already serve: its targets without a {@code source} (those are loaded on
 *     demand), or its model name (empty when it is not valid)
 */
record RouteVerdict(String namespace, String name, long generation, String rejectReason, String problem,
    List<String> pools, List<String> unresolved, List<String> models) {

  RouteVerdict {
    pools = List.copyOf(pools);
    models = List.copyOf(models);
    unresolved = List.copyOf(unresolved);
  }

  boolean accepted() {
    return problem == null;
  }
}
