package io.llmgw.scraper;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/** One pod's place in the scraper: its target, its last state, what its scrapes remember between rounds. */
final class ScrapeSlot {
  final ScrapeTarget target;
  final AtomicBoolean inFlight = new AtomicBoolean();
  volatile ScrapeState state = ScrapeState.INITIAL;
  volatile ServedModels models = ServedModels.UNKNOWN;
  volatile long modelsFetchedAt = Long.MIN_VALUE / 2;
  volatile int lastSkipped;
  volatile boolean modelsFailing;
  // the filtered page: whether it ever answered, until when the whole page is read instead (0: never refused)
  volatile boolean filterWorked;
  volatile long wholePageUntil;
  boolean retired; // guarded by the slot: set once it left the targets, after which no listener hears of it

  final AdapterActivityMemory activity; // written by this slot's scrapes only, one at a time

  boolean filterRefused(long nowMillis) {
    return nowMillis < wholePageUntil;
  }

  ScrapeSlot(ScrapeTarget target, Duration warmWindow) {
    this.target = target;
    this.activity = new AdapterActivityMemory(warmWindow);
  }
}
