package io.llmgw.scraper.kvevents;

import java.util.List;

/** vLLM's {@code KVEventBatch}: when (seconds since the epoch), the events in order, and the data-parallel rank. */
public record KvEventBatch(double ts, List<KvEvent> events, Integer dataParallelRank) {}
