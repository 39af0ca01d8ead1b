package io.llmgw.extproc.peers;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a replica that starts has what the fleet knows (issue 51): each peer it watches has either greeted it (its
 * counts, tenants' spending, the replicas it holds without hearing, the prompt blocks routed lately) or refused the
 * connection (nobody there). Until then the replica is not ready, so proxies send it nothing it would route blind;
 * after {@code timeout} it is ready all the same, on what it has, and says so (a peer cut off must not keep a replica
 * out of service).
 */
final class WarmStart {
  private static final Logger LOG = LoggerFactory.getLogger(WarmStart.class);

  private final Set<String> answered = ConcurrentHashMap.newKeySet();
  private final Supplier<Set<String>> wanted;
  private final long timeoutMillis;
  private volatile long deadlineNanos = Long.MAX_VALUE;
  private volatile boolean warm;
  private volatile Runnable onWarm = () -> {};

  WarmStart(Supplier<Set<String>> wanted, Duration timeout) {
    this.wanted = wanted;
    this.timeoutMillis = timeout.toMillis();
  }

  /** The time starts now (the exchange starts watching). */
  void begin() {
    deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
  }

  long timeoutMillis() {
    return timeoutMillis;
  }

  void onWarm(Runnable r) {
    onWarm = r;
  }

  /** The peer greeted this replica, or is not there to. */
  void answered(String peer) {
    if (answered.add(peer) && !warm) {
      check();
    }
  }

  /** Checks again: the wanted peers changed, or the deadline may have passed. */
  synchronized void check() {
    if (warm) {
      return;
    }
    Set<String> now = wanted.get();
    boolean all = answered.containsAll(now);
    if (!all && (deadlineNanos == Long.MAX_VALUE || System.nanoTime() - deadlineNanos < 0)) {
      return;
    }
    warm = true;
    if (!all) {
      Set<String> silent = new TreeSet<>(now);
      silent.removeAll(answered);
      LOG.warn("peer replicas: {} of {} did not answer within the warm-start time ({}): ready on what this replica "
          + "has, their shares of tenants' budgets held until they are heard (llmgw_peer_warm 0)", silent.size(),
          now.size(), silent);
    } else if (!now.isEmpty()) {
      LOG.info("peer replicas: warm: every peer answered ({}), ready", now.size());
    }
    onWarm.run();
  }

  /** Ready to route: every peer answered, or the time ran out. */
  boolean ready() {
    return warm;
  }

  /** Every peer watched now has answered: this replica knows what they know. */
  boolean warm() {
    return answered.containsAll(wanted.get());
  }
}
