package io.llmgw.extproc.peers;

import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's snapshot to its watchers: every tick while it changes, every heartbeat while it does not. It ticks
 * from the first peer on (listed, discovered or watching), so a replica without peers, the usual one, is not woken 40
 * times a second for nothing: on a virtual machine the wake-up costs more than the tick's work (bench/README.md, "What
 * a replica pays per peer message").
 */
final class PeerPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(PeerPublisher.class);
  /** An unchanged snapshot is sent again after this, well within a peer's 500 ms freshness (issue 51). */
  private static final long HEARTBEAT_NANOS = 200_000_000L;

  private final ScheduledExecutorService scheduler;
  private final PeerLoadService service;
  private final PeerMessages messages;
  /** The last snapshot sent and when (the scheduler's tick only). */
  private byte[] lastSent;
  private long lastSentNanos;
  private ScheduledFuture<?> ticks;
  private int started;
  private boolean closed;

  /** @param messages this replica's counts, spending, and what it routed and charged since the last tick */
  PeerPublisher(ScheduledExecutorService scheduler, PeerLoadService service, PeerMessages messages) {
    this.scheduler = scheduler;
    this.service = service;
    this.messages = messages;
  }

  /** Ticks from now on, if it does not already. */
  synchronized void start() {
    if (ticks == null && !closed) {
      ticks = scheduler.scheduleAtFixedRate(this::tick, PeerExchange.TICK_MILLIS, PeerExchange.TICK_MILLIS,
          TimeUnit.MILLISECONDS);
      started++;
    }
  }

  /** How many times the ticks were set going (at most once). */
  synchronized int started() {
    return started;
  }

  synchronized void close() {
    closed = true;
    if (ticks != null) {
      ticks.cancel(false);
    }
  }

  private void tick() {
    try {
      if (service.watchers() > 0) {
        PeerMessages.Tick now = messages.tick();
        long at = System.nanoTime();
        if (Arrays.equals(now.withServed(), lastSent) && at - lastSentNanos < HEARTBEAT_NANOS) {
          return; // nothing changed: the watchers' view is still true, and an idle fleet sends next to nothing
        }
        service.publish(now.forAll(), now.withServed());
        lastSent = now.withServed();
        lastSentNanos = at;
      } else {
        messages.discard();
      }
    } catch (RuntimeException e) {
      LOG.warn("peer replicas: could not send this replica's counts: {}", e.toString());
    }
  }
}
