package io.llmgw.extproc.request;

import io.llmgw.api.Variant;
import io.llmgw.extproc.state.PoolView;
import java.util.List;

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

  /** Served as {@code version} (no source: it is not loaded for this request) until {@code version} is resident nowhere. */
  public Choice redirectedTo(String version) {
    return new Choice(version, null, pools, variant, unmet, this);
  }
}
