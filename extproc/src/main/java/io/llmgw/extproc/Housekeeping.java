package io.llmgw.extproc;

import io.llmgw.extproc.observe.TrafficHistory;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EPP's periodic chores on its scheduler: the adapter reaper, copy scaling, the capacity plan, and the sweeps that
 * stop counting requests that outlived {@code --max-request-duration} or went silent while arriving.
 */
final class Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(Epp.class);

  private final EppSettings settings;
  private final Components parts;

  Housekeeping(EppSettings settings, Components parts) {
    this.settings = settings;
    this.parts = parts;
  }

  void schedule(ScheduledExecutorService scheduler) {
    long reap = settings.adapters().reaperPeriod().toMillis();
    scheduler.scheduleWithFixedDelay(() -> parts.adapters().reaper().reap(parts.datastore().allStates()), reap, reap,
        TimeUnit.MILLISECONDS);
    long sweep = Math.min(1_000, settings.requests().maxRequestDuration().toMillis() / 10);
    scheduler.scheduleWithFixedDelay(this::expireInFlight, sweep, sweep, TimeUnit.MILLISECONDS);
    long idleSweep = Math.min(1_000, settings.requests().idleTimeout().toMillis() / 4);
    scheduler.scheduleWithFixedDelay(this::expireIdleStreams, idleSweep, idleSweep, TimeUnit.MILLISECONDS);
    parts.capacity().start(scheduler);
    scheduler.scheduleWithFixedDelay(parts.status().history()::sample, 0, TrafficHistory.EVERY_MILLIS,
        TimeUnit.MILLISECONDS);
    if (settings.adapters().copyScaling()) {
      long tick = settings.copies().tick().toMillis();
      scheduler.scheduleWithFixedDelay(parts.copyScaler()::tick, tick, tick, TimeUnit.MILLISECONDS);
    }
  }

  /** Requests routed longer ago than the longest a request may take stop counting against their pods. */
  private void expireInFlight() {
    Duration max = settings.requests().maxRequestDuration();
    int expired = parts.datastore().inFlight().expireOlderThan(max);
    if (expired > 0) {
      LOG.warn("{} routed request(s) still open after {} s stopped counting in flight (--max-request-duration)",
          expired, max.toSeconds());
      parts.metrics().inFlightExpired(expired);
      parts.flow().signal();
    }
  }

  /** Requests that went silent while arriving give back their stream slot and buffered bytes. */
  private void expireIdleStreams() {
    int expired = parts.streams().limits().expireIdle();
    if (expired > 0) {
      LOG.warn("{} request stream(s) sent nothing for {} ms while their request arrived; answered 408 or ended "
          + "(--request-idle-timeout)", expired, settings.requests().idleTimeout().toMillis());
      parts.metrics().idleStreamsExpired(expired);
    }
  }
}
