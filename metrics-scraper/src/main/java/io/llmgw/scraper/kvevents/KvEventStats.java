package io.llmgw.scraper.kvevents;

import io.llmgw.picker.kvcache.EngineBlockIndex.Loss;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What the subscriber counts, for the EPP's metrics; safe to read from any thread. */
public final class KvEventStats {
  final LongAdder batches = new LongAdder();
  final LongAdder replays = new LongAdder();
  final LongAdder replaysUnanswered = new LongAdder();
  final LongAdder restarts = new LongAdder();
  final LongAdder disconnects = new LongAdder();
  final LongAdder bytes = new LongAdder();
  private final Map<Loss, LongAdder> losses = new EnumMap<>(Loss.class);

  KvEventStats() {
    for (Loss l : Loss.values()) {
      losses.put(l, new LongAdder());
    }
  }

  void lost(Loss loss) {
    losses.get(loss).increment();
  }

  public long batches() {
    return batches.sum();
  }

  public long replays() {
    return replays.sum();
  }

  public long replaysUnanswered() {
    return replaysUnanswered.sum();
  }

  public long restarts() {
    return restarts.sum();
  }

  /** Connections that broke (each made again after a backoff). */
  public long disconnects() {
    return disconnects.sum();
  }

  /** Bytes of event batches read from the pods. */
  public long bytes() {
    return bytes.sum();
  }

  public long losses(Loss loss) {
    return losses.get(loss).sum();
  }
}
