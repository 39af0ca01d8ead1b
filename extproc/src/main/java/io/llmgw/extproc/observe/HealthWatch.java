package io.llmgw.extproc.observe;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@link Vitals} every second and tells {@link HealthServer}. It runs on a thread of its own, so that whatever
 * stopped the EPP's other loops cannot stop it from saying so.
 */
public final class HealthWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HealthWatch.class);

  private final Vitals vitals;
  private final HealthServer health;
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "epp-health-watch");
    t.setDaemon(true);
    return t;
  });
  private String problem;

  public HealthWatch(Vitals vitals, HealthServer health) {
    this.vitals = vitals;
    this.health = health;
  }

  public HealthWatch start(long periodMillis) {
    thread.scheduleWithFixedDelay(this::check, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    return this;
  }

  /** One look: health changes, and the log says why, only when the answer changes. */
  public synchronized void check() {
    String now;
    try {
      now = vitals.problem();
    } catch (RuntimeException e) {
      now = "the health check itself failed: " + e;
    }
    if (now != null && problem == null) {
      LOG.error("EPP unhealthy, health answers NOT_SERVING until it recovers: {}", now);
      health.setAlive(false);
    } else if (now == null && problem != null) {
      LOG.info("EPP healthy again (was: {})", problem);
      health.setAlive(true);
    }
    problem = now;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
