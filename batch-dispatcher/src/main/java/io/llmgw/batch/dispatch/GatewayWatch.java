package io.llmgw.batch.dispatch;

import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the gateway's front door answers. While it does not (a connection refused or reset, a request timed out),
 * every pool waits: nothing is sent but one probe line at a time, the first at once and then after a back-off that
 * doubles to {@value #MAX_BACKOFF_MILLIS} ms, until one gets any answer. A rolling restart of the proxy then costs
 * lines nothing: none spends an attempt on it, and the batch's window is the only bound. One WARN when it goes away,
 * one when it is back, and {@code llmgw_batch_gateway_reachable} meanwhile.
 *
 * <p>A front door that refuses this service's own credentials (401) is held the same way, for a configuration that
 * cannot work: every line would fail alike and the batch end "completed" with all of them failed (issue 53). That says
 * itself in one ERROR line naming what to mend and in {@link #problem} (the service's {@code /ready}) until a line
 * goes through again; nothing is spent meanwhile, so the lines wait for the mended keys file or restart.
 */
final class GatewayWatch {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  static final long FIRST_BACKOFF_MILLIS = 500;
  static final long MAX_BACKOFF_MILLIS = 8_000;

  private final Clock clock;
  private final BatchMetrics metrics;
  private final String frontDoor;
  private boolean away;
  private long awaySince;
  private long backoff;
  private long nextProbe;
  private boolean probing;
  /** Why every pool waits, while one does; null otherwise. */
  private String problem;

  GatewayWatch(Clock clock, BatchMetrics metrics, String frontDoor) {
    this.clock = clock;
    this.metrics = metrics;
    this.frontDoor = frontDoor;
  }

  synchronized boolean away() {
    return away;
  }

  /** While away: whether one probe line may go now (the caller sends exactly one, and reports how it went). */
  synchronized boolean takeProbe() {
    if (!away || probing || clock.millis() < nextProbe) {
      return false;
    }
    probing = true;
    return true;
  }

  /** The probe taken was not sent after all (no pool had a line and room for it). */
  synchronized void probeNotSent() {
    probing = false;
  }

  /** A line got no answer. A failed probe doubles the wait; lines that were in flight when it went away do not. */
  synchronized void unreachable(boolean probe, String detail) {
    if (hold(probe, "the gateway does not answer; the service's log says where and why")) {
      LOG.warn("batch dispatcher: the gateway at {} does not answer ({}); every pool waits, and a probe line goes "
          + "every few seconds until it answers again", frontDoor, detail);
    }
  }

  /**
   * The gateway refused this service's credentials: {@code mend} says what the operator must change (and is what
   * {@link #problem} says, on an open path: no address, nothing quoted), {@code said} what the gateway answered.
   */
  synchronized void credentialsRefused(boolean probe, String mend, String said) {
    if (hold(probe, mend)) {
      LOG.error("batch dispatcher: {} (the gateway at {} answered 401: {}); every pool waits, no line spends an "
          + "attempt, and a probe line goes every few seconds until the gateway accepts it", mend, frontDoor, said);
    }
  }

  /** Whether this starts the hold (the caller logs why, once). */
  private boolean hold(boolean probe, String why) {
    long now = clock.millis();
    boolean starts = !away;
    if (starts) {
      away = true;
      awaySince = now;
      backoff = FIRST_BACKOFF_MILLIS;
      nextProbe = now + backoff;
      problem = why;
      metrics.gatewayReachable(false);
    } else if (probe) {
      backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      nextProbe = now + backoff;
    }
    if (probe) {
      probing = false;
    }
    return starts;
  }

  /** Why every pool waits, or null while lines go through. */
  synchronized String problem() {
    return problem;
  }

  /** A line got an answer, whatever it said: the front door is there. */
  synchronized void answered() {
    probing = false;
    if (away) {
      away = false;
      problem = null;
      metrics.gatewayReachable(true);
      LOG.warn("batch dispatcher: the gateway at {} answers again, after {} s; dispatch resumes", frontDoor,
          (clock.millis() - awaySince) / 1000);
    }
  }
}
