package io.llmgw.scraper.kvevents;

/**
 * A delay that doubles each time it is taken, from {@code first} up to {@code max}, until {@link #reset}: how long a
 * pod is left alone after it broke its connection, flooded, or left a replay unanswered. Confined to one thread.
 */
final class Backoff {
  private final long firstNanos;
  private final long maxNanos;
  private long nextNanos;

  Backoff(long firstNanos, long maxNanos) {
    this.firstNanos = firstNanos;
    this.maxNanos = maxNanos;
    this.nextNanos = firstNanos;
  }

  /** The delay to wait now; the next one is twice as long. */
  long take() {
    long now = nextNanos;
    nextNanos = Math.min(maxNanos, nextNanos * 2);
    return now;
  }

  /** The trouble is over: the next delay is the first again. */
  void reset() {
    nextNanos = firstNanos;
  }

  long maxNanos() {
    return maxNanos;
  }
}
