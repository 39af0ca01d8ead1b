package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.PrefixView;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.routed.RoutedIndex;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.util.List;
import java.util.Set;

/**
 * Share of the prompt's leading blocks that were recently routed to the endpoint, so its KV prefix cache likely holds
 * them (GIE's prefix-cache-scorer). The lifecycle hashes the prompt with {@link #hasher()} before scheduling, and the
 * scorer records where each request went. Replicas that share what they routed share this index (issue 29).
 */
public final class PrefixCacheScorer implements Scorer, PrefixView {
  public static final String TYPE = "prefix-cache-scorer";

  /** GIE's default LRU capacity per server. */
  public static final int DEFAULT_LRU_CAPACITY_PER_SERVER = 31_250;

  private final PrefixHasher hasher;
  private final RoutedIndex index;

  /** @param index where prompts cut by this hasher went: this scorer's own, or one it shares ({@link RoutedPrefixes}) */
  public PrefixCacheScorer(PrefixHasher hasher, RoutedIndex index) {
    this.hasher = hasher;
    this.index = index;
  }

  /** With an index of its own, unshared. */
  public PrefixCacheScorer(PrefixHasher hasher, int lruCapacityPerServer) {
    this(hasher, new RoutedPrefixes().index(hasher.blockBytes(), lruCapacityPerServer));
  }

  public PrefixCacheScorer() {
    this(new PrefixHasher(), DEFAULT_LRU_CAPACITY_PER_SERVER);
  }

  /** How the prompt is cut into blocks for this scorer. */
  @Override
  public PrefixHasher hasher() {
    return hasher;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.PROMPT_BLOCKS);
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    long[] blocks = request.prefixBlocks();
    for (int i = 0; i < candidates.size(); i++) {
      out[i] = cachedShare(candidates.get(i).address(), blocks);
    }
  }

  @Override
  public double cachedShare(String address, long[] blocks) {
    return blocks.length == 0 ? 0.0 : (double) index.matchedBlocks(address, blocks) / blocks.length;
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    long[] blocks = request.prefixBlocks();
    if (blocks.length > 0) {
      index.record(primary.address(), blocks);
    }
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    index.retainOnly(addresses);
  }
}
