package io.llmgw.picker;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Endpoints the filter keeps are ranked by {@code preferred}; the rest follow, ranked by {@code otherwise}. The best
 * answer comes from the preferred branch when it has any, and fallbacks still reach the rest of the pool.
 */
public record BranchPolicy(Filter filter, Policy preferred, Policy otherwise) implements Policy {
  @Override
  public List<EndpointState> rank(PickRequest request, List<EndpointState> candidates, int limit) {
    List<EndpointState> kept = new ArrayList<>(candidates.size());
    List<EndpointState> rest = new ArrayList<>(candidates.size());
    for (EndpointState e : candidates) {
      (filter.keep(request, e) ? kept : rest).add(e);
    }
    List<EndpointState> ranked = new ArrayList<>(limit);
    if (!kept.isEmpty()) {
      ranked.addAll(preferred.rank(request, kept, limit));
    }
    if (ranked.size() < limit && !rest.isEmpty()) {
      ranked.addAll(otherwise.rank(request, rest, limit - ranked.size()));
    }
    return ranked;
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    preferred.onPicked(request, primary);
    if (otherwise != preferred) {
      otherwise.onPicked(request, primary);
    }
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    preferred.retainOnly(addresses);
    if (otherwise != preferred) {
      otherwise.retainOnly(addresses);
    }
  }
}
