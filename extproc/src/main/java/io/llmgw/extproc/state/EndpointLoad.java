package io.llmgw.extproc.state;

import io.llmgw.picker.InFlight;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Live in-flight counters of one endpoint, per model and in total, which of them were sent after the pod's last
 * report, and which have not had their first token yet with the uncached prompt tokens they reserved. Per-model
 * updates are atomic per key; the sent-since window and each request's prefill are guarded by this object.
 */
public final class EndpointLoad implements InFlight {
  private final AtomicInteger total = new AtomicInteger();
  private final Map<String, Integer> byModel = new ConcurrentHashMap<>();
  /** Requests in send order, newer than {@link #horizon} or ended and not yet trimmed. */
  private final ArrayDeque<Sent> recent = new ArrayDeque<>();
  private int recentLive;
  private long horizon = Long.MIN_VALUE;
  private final AtomicLong prefillTokens = new AtomicLong();
  private final AtomicInteger inPrefill = new AtomicInteger();

  @Override
  public int forModel(String model) {
    return byModel.getOrDefault(model, 0);
  }

  @Override
  public int total() {
    return total.get();
  }

  @Override
  public synchronized int sentSince(Instant reportedAt) {
    horizon = Math.max(horizon, reportedAt.toEpochMilli());
    trim();
    return recentLive;
  }

  @Override
  public long prefillTokens() {
    return prefillTokens.get();
  }

  @Override
  public int inPrefill() {
    return inPrefill.get();
  }

  /** @param prefill the uncached prompt tokens the request reserves until its first token (or its end) */
  Sent increment(String model, long sentMillis, long prefill) {
    byModel.merge(model, 1, Integer::sum);
    total.incrementAndGet();
    Sent s = new Sent(sentMillis, prefill);
    prefillTokens.addAndGet(prefill);
    inPrefill.incrementAndGet();
    synchronized (this) {
      recent.addLast(s);
      recentLive++;
      trim();
    }
    return s;
  }

  void decrement(String model, Sent sent) {
    byModel.computeIfPresent(model, (m, n) -> n <= 1 ? null : n - 1);
    total.decrementAndGet();
    synchronized (this) {
      prefillDone(sent);
      if (!sent.ended) {
        sent.ended = true;
        if (sent.unseen) {
          recentLive--;
        }
      }
      trim();
    }
  }

  /**
   * The request's first token came back (or it ended): its prompt is no longer waiting for prefill here. Once per
   * request; its remaining reservation when it had not.
   *
   * @return the tokens it still held; -1 when it was done already
   */
  synchronized long prefillDone(Sent sent) {
    if (sent.prefillDone) {
      return -1;
    }
    sent.prefillDone = true;
    prefillTokens.addAndGet(-sent.prefill);
    inPrefill.decrementAndGet();
    return sent.prefill;
  }

  /** Drops ended requests and those the last report already shows from the front, oldest first. */
  private void trim() {
    Sent head;
    while ((head = recent.peekFirst()) != null && (head.ended || head.millis < horizon)) {
      recent.pollFirst();
      if (!head.ended && head.unseen) {
        head.unseen = false;
        recentLive--;
      }
    }
  }

  /**
   * The send times of live requests the pod's last report may not show, oldest first, at most {@code max}: what this
   * replica tells its peers.
   */
  public synchronized long[] unseenSentMillis(int max) {
    trim();
    long[] out = new long[Math.min(max, recentLive)];
    int i = 0;
    for (Sent s : recent) {
      if (i == out.length) {
        break;
      }
      if (!s.ended && s.unseen) {
        out[i++] = s.millis;
      }
    }
    return i == out.length ? out : Arrays.copyOf(out, i);
  }

  /** Snapshot for the EPP's own metrics. */
  public Map<String, Integer> perModel() {
    return new TreeMap<>(byModel);
  }

  /** One request as sent here; guarded by its {@link EndpointLoad}. */
  static final class Sent {
    final long millis;
    final long prefill;
    boolean ended;
    boolean unseen = true;
    boolean prefillDone;

    private Sent(long millis, long prefill) {
      this.millis = millis;
      this.prefill = prefill;
    }
  }
}
