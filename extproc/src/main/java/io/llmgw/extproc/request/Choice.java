package io.llmgw.extproc.request;

import io.llmgw.api.PoolKey;
import io.llmgw.api.Variant;
import io.llmgw.extproc.state.PoolView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a request will be served as: the concrete model or adapter, where its weights live (null: not loadable), the
 * pools to pick from, and for a model-less route the variant and the requirements it does not meet.
 *
 * @param revertTo set when a rollout redirected the request to the version still serving: that version is served only
 *     where it is resident, and the request goes back to {@code revertTo} (the route's own target) once it is resident
 *     nowhere
 */
public record Choice(String target, String source, List<PoolView> pools, Variant variant, List<String> unmet,
    Choice revertTo) {
  public Choice {
    pools = List.copyOf(pools);
    unmet = List.copyOf(unmet);
  }

  public static Choice of(String target, String source, List<PoolView> pools) {
    return new Choice(target, source, pools, null, List.of(), null);
  }

  /** The same choice over the pools as {@code live} has them now; a pool no longer there stays as it was. */
  public Choice rebound(Map<PoolKey, PoolView> live) {
    List<PoolView> now = new ArrayList<>(pools.size());
    for (PoolView p : pools) {
      now.add(live.getOrDefault(p.key(), p));
    }
    return new Choice(target, source, now, variant, unmet, revertTo);
  }

  /** Served as {@code version} (no source: it is not loaded for this request) until {@code version} is resident nowhere. */
  public Choice redirectedTo(String version) {
    return new Choice(version, null, pools, variant, unmet, this);
  }
}
