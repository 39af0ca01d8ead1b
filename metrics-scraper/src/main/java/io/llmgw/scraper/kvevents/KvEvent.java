package io.llmgw.scraper.kvevents;

/** One event of vLLM's {@code KVEventBatch}, as decoded: what the engine's prefix cache stored, removed or cleared. */
public sealed interface KvEvent {
  /**
   * {@code BlockStored}: blocks {@code blockHashes}, holding {@code tokenIds} ({@code blockSize} each), the first one
   * after {@code parentBlockHash} when {@code hasParent}; {@code loraName} (or only {@code loraId}, older vLLM) names
   * the adapter they were computed under; {@code medium} is where they sit ("GPU", "CPU", …; null: GPU).
   */
  record BlockStored(long[] blockHashes, boolean hasParent, long parentBlockHash, int[] tokenIds, int blockSize,
      Long loraId, String medium, String loraName) implements KvEvent {}

  /** {@code BlockRemoved}: blocks evicted from {@code medium}. */
  record BlockRemoved(long[] blockHashes, String medium) implements KvEvent {}

  /** {@code AllBlocksCleared}: the prefix cache was reset. */
  record AllBlocksCleared() implements KvEvent {}
}
