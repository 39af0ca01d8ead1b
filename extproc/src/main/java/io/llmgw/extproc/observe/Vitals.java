package io.llmgw.extproc.observe;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Whether the EPP can still do its job, for health to tell the truth: a dead scraper (its ticks stopped, so every
 * pod's metrics go stale and every request would get 503) or a broken decision path (requests in a row ending in an
 * internal error) makes the EPP unhealthy, and its orchestrator restarts it. Out of memory, the JVM exits instead
 * ({@code -XX:+ExitOnOutOfMemoryError}).
 */
public final class Vitals {
  /** Requests in a row ending in an internal error before the decision path counts as broken. */
  public static final int MAX_INTERNAL_ERRORS_IN_A_ROW = 20;

  private record Heartbeat(String name, LongSupplier lastMillis, Duration maxSilence) {}

  private final Clock clock;
  private final List<Heartbeat> heartbeats = new ArrayList<>();
  private final AtomicInteger internalErrorsInARow = new AtomicInteger();

  public Vitals(Clock clock) {
    this.clock = clock;
  }

  /** A loop that must go on: it is dead when {@code lastMillis} (on this clock) is older than {@code maxSilence}. */
  public synchronized Vitals watch(String name, LongSupplier lastMillis, Duration maxSilence) {
    heartbeats.add(new Heartbeat(name, lastMillis, maxSilence));
    return this;
  }

  /** A request ended in an internal error (a bug, or a broken picker). */
  public void internalError() {
    internalErrorsInARow.incrementAndGet();
  }

  /** A request was decided: the decision path works. Read first, so the hot path writes only after a failure. */
  public void decided() {
    if (internalErrorsInARow.get() != 0) {
      internalErrorsInARow.set(0);
    }
  }

  /** What is wrong, or null when the EPP is healthy. */
  public synchronized String problem() {
    long now = clock.millis();
    for (Heartbeat h : heartbeats) {
      long silent = now - h.lastMillis().getAsLong();
      if (silent > h.maxSilence().toMillis()) {
        return h.name() + " has not run for " + silent + " ms (at most " + h.maxSilence().toMillis() + " ms)";
      }
    }
    int errors = internalErrorsInARow.get();
    if (errors >= MAX_INTERNAL_ERRORS_IN_A_ROW) {
      return "the last " + errors + " requests ended in an internal error";
    }
    return null;
  }
}
