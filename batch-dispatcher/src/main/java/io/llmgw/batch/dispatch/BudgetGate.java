package io.llmgw.batch.dispatch;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How many batch requests one pool may take now. A reading's allowance is spent by what the dispatcher sends after it
 * asked for that reading (what it sent before is in the reading's counts), so a reading that is not yet replaced cannot
 * be spent twice. The EPP's headroom is spent also by what was sent within the transit window before the reading was
 * asked for: a line sent a moment earlier may still be on its way through the proxy, not yet counted by the EPP, and
 * would otherwise be sent again on top of itself (issue 27: two readings within one of the EPP's scrape periods doubled
 * the burst, and the EPP shed the second half). A line may take far longer than that window while the proxy or the EPP
 * is slow (a JVM still compiling, a busy machine), so the lines in flight when a reading was asked for that the reading
 * does not count anywhere ({@link Budget#seen}) are on their way too, however long ago they were sent (issue 53: the
 * 16-slot pools' first second sent three headrooms before the first reached the EPP, which shed the rest). A 429 or 503
 * from the gateway closes the gate until a reading asked for after it arrives.
 */
public final class BudgetGate {
  /** Sends remembered for the transit window; past that, the oldest remembered stands for the rest (conservative). */
  private static final int RECENT_SENDS = 64;

  private final long transitNanos;
  private final LongSupplier nanoTime;
  private final long[] sendNanos = new long[RECENT_SENDS];
  private final long[] totalBefore = new long[RECENT_SENDS];
  private final long[] totalAfter = new long[RECENT_SENDS];
  private int sends;
  private Budget budget;
  private long sentTotal;
  private long sentAtReading;
  private long inTransitWhenAsked;
  private long inTransitAtReading;
  private long inFlight;
  private long inFlightWhenAsked;
  private long unseenAtReading;
  private long throttledAtSequence = -1;

  public BudgetGate(double baseline) {
    this(baseline, Duration.ZERO, System::nanoTime);
  }

  /** @param transit how long a line sent may take to reach the EPP and be counted there */
  public BudgetGate(double baseline, Duration transit, LongSupplier nanoTime) {
    this.budget = Budget.closed(baseline);
    this.transitNanos = transit.toNanos();
    this.nanoTime = nanoTime;
  }

  /** The sequence number a reading asked for now will carry; pass it back to {@link #onReading}. */
  public synchronized long readingStarts() {
    inTransitWhenAsked = sentTotal - sentAsOf(nanoTime.getAsLong() - transitNanos);
    inFlightWhenAsked = inFlight;
    return sentTotal;
  }

  /** @param sentWhenAsked {@link #readingStarts()} at the moment the reading was asked for */
  public synchronized void onReading(Budget fresh, long sentWhenAsked, long readingSequence) {
    budget = fresh;
    sentAtReading = sentWhenAsked;
    unseenAtReading = Math.max(0, inFlightWhenAsked - fresh.seen());
    inTransitAtReading = Math.max(inTransitWhenAsked, unseenAtReading);
    if (throttledAtSequence >= 0 && readingSequence > throttledAtSequence) {
      throttledAtSequence = -1;
    }
  }

  /** Readings failed: nothing goes out until one succeeds. */
  public synchronized void close(double baseline) {
    budget = Budget.closed(baseline);
  }

  /** The gateway said it is full; the reading in force or one already on its way cannot reopen the gate. */
  public synchronized void throttled(long readingSequenceInFlight) {
    throttledAtSequence = Math.max(throttledAtSequence, readingSequenceInFlight);
  }

  /** How many may be sent now, at most {@code want}; the caller sends that many and reports them with {@link #sent}. */
  public synchronized int available(int want) {
    if (throttledAtSequence >= 0 || !budget.open()) {
      return 0;
    }
    long sinceAsked = sentTotal - sentAtReading;
    long left = Math.min(budget.allowance() - unseenAtReading, (long) budget.headroom() - inTransitAtReading)
        - sinceAsked;
    return (int) Math.max(0, Math.min(want, left));
  }

  public synchronized void sent(int n) {
    if (n <= 0) {
      return;
    }
    inFlight += n;
    int k = sends % RECENT_SENDS;
    sendNanos[k] = nanoTime.getAsLong();
    totalBefore[k] = sentTotal;
    sentTotal += n;
    totalAfter[k] = sentTotal;
    sends++;
  }

  /** One line sent has its answer, whatever it was: it is no longer on its way anywhere. */
  public synchronized void answered() {
    inFlight = Math.max(0, inFlight - 1);
  }

  /** The total sent as it stood at {@code nanos}. */
  private long sentAsOf(long nanos) {
    int remembered = Math.min(sends, RECENT_SENDS);
    long oldestBefore = sentTotal;
    for (int i = 1; i <= remembered; i++) {
      int k = Math.floorMod(sends - i, RECENT_SENDS);
      if (sendNanos[k] - nanos <= 0) {
        return totalAfter[k];
      }
      oldestBefore = totalBefore[k];
    }
    return oldestBefore;
  }

  public synchronized Budget budget() {
    return budget;
  }

  public synchronized boolean throttledNow() {
    return throttledAtSequence >= 0;
  }
}
