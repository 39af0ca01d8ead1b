package io.llmgw.batch.dispatch;

/**
 * How many batch requests one pool may take now. A reading's allowance is spent by what the dispatcher sends after it
 * asked for that reading (what it sent before is in the reading's counts), so a reading that is not yet replaced cannot
 * be spent twice. A 429 or 503 from the gateway closes the gate until a reading asked for after it arrives.
 */
public final class BudgetGate {
  private Budget budget;
  private long sentTotal;
  private long sentAtReading;
  private long throttledAtSequence = -1;

  public BudgetGate(double baseline) {
    this.budget = Budget.closed(baseline);
  }

  /** The sequence number a reading asked for now will carry; pass it back to {@link #onReading}. */
  public synchronized long readingStarts() {
    return sentTotal;
  }

  /** @param sentWhenAsked {@link #readingStarts()} at the moment the reading was asked for */
  public synchronized void onReading(Budget fresh, long sentWhenAsked, long readingSequence) {
    budget = fresh;
    sentAtReading = sentWhenAsked;
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
    long left = budget.allowance() - (sentTotal - sentAtReading);
    return (int) Math.max(0, Math.min(want, left));
  }

  public synchronized void sent(int n) {
    sentTotal += n;
  }

  public synchronized Budget budget() {
    return budget;
  }

  public synchronized boolean throttledNow() {
    return throttledAtSequence >= 0;
  }
}
