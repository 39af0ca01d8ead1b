package io.llmgw.extproc.flow.controller;

import io.llmgw.api.PoolKey;
import io.llmgw.extproc.flow.core.ServedOutbox;
import io.llmgw.extproc.flow.core.ServedTokens;
import io.llmgw.extproc.flow.core.SharedCounters;
import io.llmgw.extproc.flow.core.TokenCounters;
import io.llmgw.extproc.state.PoolView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Token fairness's counters, one set per set of pools (as many as the routes' pool sets), kept while queues come and
 * go, and shared with the peers ({@link SharedCounters}): a set is known to the fleet by its pools' names.
 */
final class FleetCounters implements SharedCounters {
  /** Pool sets a peer may name before this replica has routed to them; past this, what it says of others is dropped. */
  static final int MAX_HEARD_POOL_SETS = 1024;

  private final ServedOutbox outbox = new ServedOutbox();
  private final Map<PoolSet, TokenCounters> bySet = new ConcurrentHashMap<>();
  /** The same, found by the one pool of a single-pool set: the request path asks without building a set. */
  private final Map<PoolKey, TokenCounters> bySinglePool = new ConcurrentHashMap<>();
  private final Map<String, TokenCounters> byName = new ConcurrentHashMap<>();

  TokenCounters of(PoolSet pools) {
    return pools.pools().size() == 1 ? bySinglePool.computeIfAbsent(pools.pools().getFirst(), this::named)
        : bySet.computeIfAbsent(pools, this::named);
  }

  TokenCounters of(List<PoolView> pools) {
    return pools.size() == 1 ? bySinglePool.computeIfAbsent(pools.getFirst().key(), this::named)
        : of(PoolSet.of(pools));
  }

  /** A set's name is its pools' keys, joined by commas in the route's order: what {@link PoolSet#toString} says. */
  private TokenCounters named(Object pools) {
    return byName.computeIfAbsent(pools.toString(), n -> new TokenCounters(n, outbox));
  }

  @Override
  public void share() {
    outbox.open();
  }

  @Override
  public List<ServedTokens> drain() {
    return outbox.drain();
  }

  @Override
  public void heard(List<ServedTokens> charges) {
    for (ServedTokens c : charges) {
      TokenCounters counters = byName.get(c.pools());
      if (counters == null && byName.size() < MAX_HEARD_POOL_SETS) {
        counters = named(c.pools());
      }
      if (counters != null) {
        counters.heard(c.priority(), c.flowId(), c.tokens());
      }
    }
  }

  @Override
  public long dropped() {
    return outbox.dropped();
  }
}
