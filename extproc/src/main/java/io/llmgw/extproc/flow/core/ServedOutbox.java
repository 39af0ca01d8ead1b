package io.llmgw.extproc.flow.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this replica's flows were charged since its last peer message, summed per pool set, band and flow. Closed (it
 * keeps nothing) until the replica has a peer; bounded by {@link #MAX_FLOWS}, past which a new flow's charges are
 * dropped and counted: fairness across replicas is a best effort, a request never waits on it.
 */
public final class ServedOutbox {
  /** Flows charged in one message's interval; the codec carries no more. */
  public static final int MAX_FLOWS = 1024;

  private record Key(String pools, int priority, String flowId) {}

  private final Map<Key, Double> charged = new ConcurrentHashMap<>();
  private final AtomicLong dropped = new AtomicLong();
  private volatile boolean open;

  /** From now on charges are kept for the peers. */
  public void open() {
    open = true;
  }

  void charged(String pools, int priority, String flowId, double tokens) {
    if (!open || tokens == 0) {
      return;
    }
    Key k = new Key(pools, priority, flowId);
    if (charged.size() >= MAX_FLOWS && !charged.containsKey(k)) {
      dropped.incrementAndGet();
      return;
    }
    charged.merge(k, tokens, Double::sum);
  }

  /**
   * The charges since the last drain; each entry is taken atomically, so a charge made meanwhile waits for the next.
   */
  public List<ServedTokens> drain() {
    if (charged.isEmpty()) {
      return List.of();
    }
    List<ServedTokens> out = new ArrayList<>(charged.size());
    for (Key k : charged.keySet()) {
      Double tokens = charged.remove(k);
      if (tokens != null && tokens != 0) {
        out.add(new ServedTokens(k.pools(), k.priority(), k.flowId(), tokens));
      }
    }
    return out;
  }

  /** Charges left out because {@link #MAX_FLOWS} flows were already waiting to be sent. */
  public long dropped() {
    return dropped.get();
  }
}
