package io.llmgw.batch.dispatch;

import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The tenant each batch belongs to, for the lines sent on its behalf: read once per batch, kept while it runs. */
final class Owners {
  /** More running batches than this at once is not expected; past it the cache starts over rather than grow. */
  private static final int MAX = 10_000;

  private final BatchStore store;
  private final Map<String, String> byBatch = new ConcurrentHashMap<>();

  Owners(BatchStore store) {
    this.store = store;
  }

  /** The batch's owner; {@code ""} for none, or for a batch no longer stored (its lines are being dropped). */
  String of(String batchId) {
    String owner = byBatch.get(batchId);
    if (owner == null) {
      owner = store.batch(batchId).map(Batch::owner).orElse("");
      if (byBatch.size() >= MAX) {
        byBatch.clear();
      }
      byBatch.put(batchId, owner);
    }
    return owner;
  }
}
