package io.llmgw.extproc.routing;

import io.llmgw.api.Variant;
import io.llmgw.extproc.state.PoolView;
import java.util.List;

/**
 * What a request will be served as: the concrete model or adapter, where its weights live (null: not loadable), the
 * pools to pick from, and for a model-less route the variant and the requirements it does not meet.
 */
public record Choice(String target, String source, List<PoolView> pools, Variant variant, List<String> unmet) {
  public Choice {
    pools = List.copyOf(pools);
    unmet = List.copyOf(unmet);
  }

  public static Choice of(String target, String source, List<PoolView> pools) {
    return new Choice(target, source, pools, null, List.of());
  }

  public Choice withTarget(String newTarget, String newSource) {
    return new Choice(newTarget, newSource, pools, variant, unmet);
  }
}
