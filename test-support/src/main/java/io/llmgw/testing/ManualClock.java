package io.llmgw.testing;

import io.llmgw.picker.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** Wall clock and ticker in one, moved only by the test: deadlines, staleness and durations all follow it. */
public final class ManualClock extends Clock implements Ticker {
  private volatile Instant now;
  private volatile long nanos;

  public ManualClock(Instant start) {
    this.now = start;
  }

  public synchronized void advance(Duration d) {
    now = now.plus(d);
    nanos += d.toNanos();
  }

  @Override
  public long nanos() {
    return nanos;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
