package io.llmgw.scraper;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The timeouts of requests that all wait as long: kept in the order they started, which is the order they expire, with
 * one timer for the oldest unfinished one. A timer per request (a task scheduled and cancelled on every scrape) cost
 * more than the request's own bookkeeping. A request that finishes is dropped once every older one has; so at most the
 * requests started within one timeout are held. Touched on its loop only.
 */
final class Deadlines {
  /** A request with a deadline. */
  interface Timed {
    long deadlineNanos();

    /** Ended one way or another: its deadline no longer matters. */
    boolean finished();

    /** Its deadline passed before it finished. */
    void expire();
  }

  private final EventLoop loop;
  private final long timeoutNanos;
  private final ArrayDeque<Timed> started = new ArrayDeque<>();
  private ScheduledFuture<?> timer;

  Deadlines(EventLoop loop, long timeoutNanos) {
    this.loop = loop;
    this.timeoutNanos = timeoutNanos;
  }

  /** The deadline of a request starting now. */
  long deadlineFromNow() {
    return System.nanoTime() + timeoutNanos;
  }

  /** Watches a request whose deadline is the latest so far (it started last). */
  void add(Timed request) {
    started.addLast(request);
    if (timer == null) {
      arm(request.deadlineNanos());
    }
  }

  /** Drops the oldest requests that have finished; called as one finishes. */
  void dropFinished() {
    while (!started.isEmpty() && started.peekFirst().finished()) {
      started.pollFirst();
    }
  }

  /** One timer at a time: a request that ends inside {@link #expire} may start another, which arms it too. */
  private void arm(long atNanos) {
    if (timer != null) {
      timer.cancel(false);
    }
    timer = loop.schedule(this::expire, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void expire() {
    timer = null;
    long now = System.nanoTime();
    while (!started.isEmpty()) {
      Timed oldest = started.peekFirst();
      if (oldest.finished()) {
        started.pollFirst();
      } else if (oldest.deadlineNanos() - now > 0) {
        arm(oldest.deadlineNanos());
        return;
      } else {
        started.pollFirst();
        oldest.expire();
      }
    }
  }

  /** How many requests are held (for tests: the bound). */
  int held() {
    return started.size();
  }
}
