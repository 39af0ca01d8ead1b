package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;
import java.util.Set;

/** Share of the prompt's leading blocks that were recently routed to the endpoint, so its KV prefix cache likely holds them. */
public final class PrefixCacheScorer implements Scorer {
  private final PrefixCacheIndex index;

  public PrefixCacheScorer(PrefixCacheIndex index) {
    this.index = index;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    long[] blocks = request.prefixBlocks();
    for (int i = 0; i < candidates.size(); i++) {
      out[i] = blocks.length == 0 ? 0.0 : (double) index.matchedBlocks(candidates.get(i).address(), blocks) / blocks.length;
    }
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    if (request.prefixBlocks().length > 0) {
      index.record(primary.address(), request.prefixBlocks());
    }
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    index.retainOnly(addresses);
  }
}
