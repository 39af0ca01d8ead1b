package io.llmgw.scraper.kvevents;

/**
 * How much of a pod's undecoded events one SUB socket may hold. ZeroMQ bounds a socket's inbound queue in messages,
 * not bytes, and allocates a message whole when its header arrives; so a byte share is kept by bounding both: at most
 * {@code highWaterMark} messages queued plus one being read, each at most {@code maxMessageBytes}. When the queue is
 * full ZeroMQ stops reading the connection and the pod's PUB socket drops what it cannot send: a flood costs the pod
 * its events, never this replica its heap.
 *
 * @param shareBytes what this pod's socket may hold: the overall budget split evenly, never under {@link
 *     #MIN_SHARE_BYTES} (so with very many pods the bound is that many MiB, not the budget)
 */
record IntakeBudget(long shareBytes, int maxMessageBytes, int highWaterMark) {
  static final long MIN_SHARE_BYTES = 1L << 20;

  static IntakeBudget forPods(KvEventSettings settings, int pods) {
    long share = Math.max(MIN_SHARE_BYTES, settings.budgetBytes() / Math.max(1, pods));
    int maxMessage = (int) Math.min(settings.maxMessageBytes(), share / 2);
    int hwm = (int) Math.clamp(share / maxMessage - 1, 1, 10_000);
    return new IntakeBudget(share, maxMessage, hwm);
  }

  /** The most bytes the socket can hold at once. */
  long boundBytes() {
    return (long) (highWaterMark + 1) * maxMessageBytes;
  }

  /** A socket built with {@code this} holds too much under {@code now}: it is made again with the smaller share. */
  boolean exceeds(IntakeBudget now) {
    return boundBytes() > 2 * now.boundBytes();
  }
}
