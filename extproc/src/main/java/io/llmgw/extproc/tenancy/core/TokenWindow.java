package io.llmgw.extproc.tenancy.core;

import java.util.Arrays;

/**
 * Tokens charged in a sliding window (a minute, a day), in buckets. A charge counts from the moment it is made until a
 * whole window after the end of its bucket: never less than a window, so the sum at any moment covers every charge of
 * the window ending then, and a limit held at each admission holds for every window. Memory is the bucket count,
 * whatever the rate. Not thread-safe; the caller serialises.
 */
final class TokenWindow {
  private final long bucketMillis;
  private final long[] amounts;
  /** The bucket (time / bucketMillis) each slot holds; a slot whose bucket is out of the window is empty. */
  private final long[] buckets;
  private final int span;
  private long sum;
  /** The bucket of the last expiry: within one bucket nothing leaves the window, and no slot is scanned. */
  private long expiredAt = Long.MIN_VALUE;

  /** @param windowMillis the window; {@code bucketMillis} divides it */
  TokenWindow(long windowMillis, long bucketMillis) {
    this.bucketMillis = bucketMillis;
    this.span = (int) (windowMillis / bucketMillis);
    this.amounts = new long[span + 1];
    this.buckets = new long[span + 1];
    Arrays.fill(buckets, Long.MIN_VALUE);
  }

  /** Tokens that count now. */
  long sum(long nowMillis) {
    expire(nowMillis / bucketMillis);
    return sum;
  }

  void charge(long nowMillis, long tokens) {
    long bucket = nowMillis / bucketMillis;
    expire(bucket);
    int slot = (int) Math.floorMod(bucket, (long) amounts.length);
    if (buckets[slot] != bucket) {
      buckets[slot] = bucket;
      amounts[slot] = 0;
    }
    amounts[slot] += tokens;
    sum += tokens;
  }

  /**
   * Changes a charge made at {@code chargedAtMillis} by {@code delta} (negative: a refund), if it still counts; a
   * charge already out of the window is left alone. A bucket never goes below zero.
   */
  void adjust(long chargedAtMillis, long delta, long nowMillis) {
    expire(nowMillis / bucketMillis);
    long bucket = chargedAtMillis / bucketMillis;
    int slot = (int) Math.floorMod(bucket, (long) amounts.length);
    if (buckets[slot] != bucket) {
      return;
    }
    long after = Math.max(0, amounts[slot] + delta);
    sum += after - amounts[slot];
    amounts[slot] = after;
  }

  /**
   * How long until {@code need} more tokens fit under {@code limit} as charges leave the window; 0 when they fit now,
   * -1 when they never can (more than the whole limit).
   */
  long millisUntilRoom(long nowMillis, long need, long limit) {
    if (need > limit) {
      return -1;
    }
    long bucket = nowMillis / bucketMillis;
    expire(bucket);
    long over = sum + need - limit;
    if (over <= 0) {
      return 0;
    }
    for (long b = bucket - span; b <= bucket; b++) {
      int slot = (int) Math.floorMod(b, (long) amounts.length);
      if (buckets[slot] == b) {
        over -= amounts[slot];
        if (over <= 0) {
          return (b + span + 1) * bucketMillis - nowMillis; // when bucket b stops counting
        }
      }
    }
    return (bucket + span + 1) * bucketMillis - nowMillis;
  }

  private void expire(long bucket) {
    if (bucket == expiredAt) {
      return;
    }
    expiredAt = bucket;
    long oldest = bucket - span; // buckets before this one stop counting
    for (int slot = 0; slot < amounts.length; slot++) {
      if (buckets[slot] != Long.MIN_VALUE && buckets[slot] < oldest) {
        sum -= amounts[slot];
        amounts[slot] = 0;
        buckets[slot] = Long.MIN_VALUE;
      }
    }
  }
}
