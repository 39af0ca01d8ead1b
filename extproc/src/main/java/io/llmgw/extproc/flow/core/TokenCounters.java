package io.llmgw.extproc.flow.core;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Token fairness's virtual counters for one set of pools: per priority band and flow, the tokens the flow was served,
 * divided by its weight. They outlive the moments a band's queue drains (a flood pausing between two bursts keeps
 * what it was served), and every request counts, waited or not. Safe to use from any thread: a request that did not
 * wait charges its flow without flow control's lock. With peers, what is charged here goes to them too, and what they
 * charged is added here ({@link SharedCounters}): the counters are the fleet's.
 */
public final class TokenCounters {
  /** Flow ids may come from clients (a header): past this many counters, history starts over rather than grow. */
  static final int MAX_COUNTERS = 65_536;

  private record Key(int priority, String flowId) {}

  private final Map<Key, Double> served = new ConcurrentHashMap<>();
  /** The pool set's name, and where what is charged here goes to the peers (null: nowhere). */
  private final String pools;
  private final ServedOutbox outbox;
  /** Per band, the counter of the flow a dispatch charged last: where a flow joining an empty band starts. */
  private final Map<Integer, Double> lastCharged = new ConcurrentHashMap<>();

  public TokenCounters() {
    this("", null);
  }

  /** Counters whose charges go to {@code outbox} under {@code pools}, the pool set's name. */
  public TokenCounters(String pools, ServedOutbox outbox) {
    this.pools = pools;
    this.outbox = outbox;
  }

  /** Tokens served to the flow, for its weight. */
  public double of(int priority, String flowId) {
    return served.getOrDefault(new Key(priority, flowId), 0.0);
  }

  /** The flow was served {@code tokens} more (negative: its usage came in under what it was charged). */
  public void add(int priority, String flowId, double tokens) {
    heard(priority, flowId, tokens);
    if (outbox != null) {
      outbox.charged(pools, priority, flowId, tokens);
    }
  }

  /** A peer served the flow {@code tokens} more: counted here, not passed on. */
  public void heard(int priority, String flowId, double tokens) {
    if (served.size() >= MAX_COUNTERS) {
      served.clear();
    }
    served.merge(new Key(priority, flowId), tokens, (a, b) -> Math.max(0, a + b));
  }

  /** A dispatch from the band charged the flow: its counter is where a flow joining the band, empty now, starts. */
  void charge(int priority, String flowId, double tokens) {
    add(priority, flowId, tokens);
    lastCharged.put(priority, of(priority, flowId));
  }

  /** Lifts the flow's counter to at least {@code floor} (it starts waiting level with the least served flow). */
  void raise(int priority, String flowId, double floor) {
    served.merge(new Key(priority, flowId), floor, Math::max);
  }

  /** The counter of the flow the band's last dispatch charged; 0 before any. */
  double lastCharged(int priority) {
    return lastCharged.getOrDefault(priority, 0.0);
  }

  public int size() {
    return served.size();
  }
}
