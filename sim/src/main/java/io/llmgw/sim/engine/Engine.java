package io.llmgw.sim.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * One simulated vLLM server's scheduler: a waiting queue and a running batch, stepped like vLLM's continuous
 * batching. A waiting sequence is admitted when a running slot, enough KV blocks and an adapter slot are free; one
 * whose adapter cannot join the batch (the batch already holds {@code maxLoras} others) is skipped, so others may pass
 * it, and waits for a slot. Confined to the scheduler's thread.
 */
public final class Engine {
  /** What {@link #submit} answers: the queued sequence, or why the request was not queued. */
  public sealed interface Submission permits Sequence, Refusal {}

  /** Why a request was not queued. */
  public enum Refusal implements Submission { QUEUE_FULL, TOO_LONG, UNKNOWN_MODEL }

  private final SimConfig config;
  private final Scheduler scheduler;
  private final AdapterTiers tiers;
  private final PrefixCache prefixCache;
  private final KvEventSink kvEvents;
  private final EngineMetrics metrics;
  private final List<Sequence> waiting = new ArrayList<>();
  private final List<Sequence> running = new ArrayList<>();
  private final Set<String> loading = new HashSet<>();
  private final long startNanos;
  private final long startEpochMillis = System.currentTimeMillis();
  /** running.size(), published for readers on other threads (tests, the quickstart's tables). */
  private volatile int runningNow;
  private int usedBlocks;
  private long nextId;
  private boolean stepping;
  private long stepStartNanos;

  public Engine(SimConfig config, Scheduler scheduler) {
    this(config, scheduler, KvEventSink.NONE);
  }

  /** @param kvEvents told of every block the prefix cache stores or evicts, a batch per step (on this thread) */
  public Engine(SimConfig config, Scheduler scheduler, KvEventSink kvEvents) {
    this.config = config;
    this.scheduler = scheduler;
    this.kvEvents = kvEvents;
    this.tiers = new AdapterTiers(config.maxLoras(), config.maxCpuLoras());
    this.prefixCache = new PrefixCache(config.numGpuBlocks(), kvEvents);
    this.startNanos = scheduler.nanoTime();
    for (String a : config.adapters()) {
      tiers.register(a, "/adapters/" + a, Set.of());
    }
    this.metrics = new EngineMetrics(config.model(), this);
  }

  /** Queues a request, or says why not. A returned sequence is cancelled with {@link #cancel}. */
  public Submission submit(SimRequest request, SequenceListener listener) {
    if (request.adapter() != null && !tiers.isRegistered(request.adapter())) {
      return Refusal.UNKNOWN_MODEL;
    }
    if (request.promptTokens() + request.maxTokens() > config.maxModelLen()) {
      return Refusal.TOO_LONG;
    }
    if (waiting.size() >= config.maxWaiting()) {
      return Refusal.QUEUE_FULL;
    }
    long id = nextId++;
    Sequence s = new Sequence(request, listener, new SplittableRandom(config.seed() * 1_000_003L + id),
        scheduler.nanoTime());
    s.blocks = Math.min(config.numGpuBlocks(), config.blocksFor(request.promptTokens() + request.maxTokens()));
    if (config.apiOverheadMs() > 0) {
      scheduler.schedule(config.apiOverheadMs(), () -> enqueue(s));
    } else {
      enqueue(s);
    }
    return s;
  }

  private void enqueue(Sequence s) {
    if (s.cancelled) {
      return; // the client left while the API server still held the request
    }
    s.queuedNanos = scheduler.nanoTime();
    waiting.add(s);
    if (!stepping) {
      stepping = true;
      step(Long.MAX_VALUE);
    }
  }

  /** The client went away: a waiting sequence leaves now, a running one at the end of the current step. */
  public void cancel(Sequence s) {
    if (waiting.remove(s)) {
      return;
    }
    s.cancelled = true;
  }

  /** vLLM's {@code /v1/load_lora_adapter}: takes {@code loraLoadMs}, then registers the adapter or fails. */
  public void load(String name, String path, Consumer<LoadResult> done) {
    if (name.equals(config.model()) || tiers.isRegistered(name) || loading.contains(name)) {
      done.accept(new LoadResult(400, "The lora adapter '" + name + "' has already been loaded."));
      return;
    }
    loading.add(name);
    scheduler.schedule(config.loraLoadMs(), () -> {
      loading.remove(name);
      LoadResult r = LoadResult.forPath(name, path);
      if (r.status() == 200) {
        tiers.register(name, path, runningAdapters());
      }
      done.accept(r);
    });
  }

  /** vLLM's {@code POST /reset_prefix_cache}: the prefix cache forgets every block (reported as one event). */
  public void resetPrefixCache() {
    prefixCache.clear();
    kvEvents.endOfStep();
  }

  /** vLLM's {@code /v1/unload_lora_adapter}. Sequences already queued for the adapter still complete. */
  public LoadResult unload(String name) {
    if (!tiers.isRegistered(name)) {
      return new LoadResult(404, "The lora adapter '" + name + "' cannot be found.");
    }
    tiers.unregister(name);
    return new LoadResult(200, "Success: LoRA adapter '" + name + "' removed successfully.");
  }

  /**
   * Starts a step: decides its batch and schedules its end.
   *
   * @param queuedBy only waiting sequences queued by then may join (with async scheduling, the start of the step just
   *     ended, when this one was scheduled); {@code Long.MAX_VALUE} when the engine was idle
   */
  private void step(long queuedBy) {
    long now = scheduler.nanoTime();
    stepStartNanos = now;
    if (config.priorityScheduling()) {
      waiting.sort(BY_PRIORITY);
      preemptFor(queuedBy);
    }
    double ms = config.decodeBaseMs() + config.decodePerSeqMs() * running.size();
    int budget = config.maxNumBatchedTokens() > 0 ? config.maxNumBatchedTokens() : Integer.MAX_VALUE;
    long contextTokens = 0;
    for (Sequence s : running) {
      if (s.prefillLeft == 0) {
        budget--;
        contextTokens += s.request.promptTokens() + s.generated;
      }
    }
    ms += config.decodePerKvTokenUs() * contextTokens / 1000.0;
    long prefillTokens = 0;
    for (Sequence s : running) { // prompts admitted earlier go on with their next chunk first, as vLLM schedules
      if (s.prefillLeft > 0 && budget > 0) {
        int chunk = Math.min(s.prefillLeft, budget);
        s.prefillLeft -= chunk;
        budget -= chunk;
        prefillTokens += chunk;
      }
    }
    Set<String> batchAdapters = runningAdapters();
    for (Iterator<Sequence> it = waiting.iterator(); it.hasNext() && running.size() < config.maxNumSeqs()
        && budget > 0;) {
      Sequence s = it.next();
      if (s.queuedNanos > queuedBy) {
        continue; // arrived after this step was scheduled
      }
      String adapter = s.adapter();
      if (adapter != null && !batchAdapters.contains(adapter) && batchAdapters.size() >= config.maxLoras()) {
        continue; // waits for an adapter slot; later sequences may still join the batch
      }
      if (usedBlocks + s.blocks > config.numGpuBlocks()) {
        break; // first come, first served for memory, as vLLM does
      }
      it.remove();
      running.add(s);
      usedBlocks += s.blocks;
      if (adapter != null) {
        AdapterTiers.Level from = tiers.activate(adapter, batchAdapters);
        batchAdapters.add(adapter);
        ms += switch (from) {
          case GPU -> 0;
          case CPU -> config.loraSwapMs();
          case DISK -> config.loraLoadMs() + config.loraSwapMs();
        };
        metrics.activated(adapter, from);
      }
      int cachedBlocks = prefixCache.matchAndInsert(s.request.prefixBlocks(), s.request.promptTokenIds(),
          config.blockSize(), adapter);
      int localHits = Math.min(s.request.promptTokens() - 1, cachedBlocks * config.blockSize());
      s.cachedTokens = Math.max(localHits, Math.min(s.request.promptTokens() - 1, s.request.remoteKvTokens()));
      int toCompute = s.request.promptTokens() - s.cachedTokens + s.generated; // a preempted one recomputes output
      int chunk = Math.min(toCompute, budget);
      s.prefillLeft = toCompute - chunk;
      budget -= chunk;
      prefillTokens += chunk;
      if (!s.preempted) {
        metrics.admitted(s, (now - s.arrivedNanos) / 1e9, localHits); // pulled KV is not a prefix-cache hit
      }
    }
    runningNow = running.size();
    kvEvents.endOfStep();
    if (prefillTokens > 0) {
      ms += config.prefillOverheadMs() + config.prefillPerTokenMs() * prefillTokens;
    }
    scheduler.schedule(ms, this::completeStep);
  }

  private static final Comparator<Sequence> BY_PRIORITY = Comparator
      .comparingInt((Sequence s) -> s.request.priority()).thenComparingLong(s -> s.arrivedNanos);

  /**
   * vLLM's priority policy: while the first waiting sequence finds no running slot or KV room and a running sequence
   * has a lower priority (a higher number), the lowest-priority, latest-arrived one goes back to waiting and gives up
   * its blocks. Only waiting sequences this step may admit ({@code queuedBy}) count.
   */
  private void preemptFor(long queuedBy) {
    while (true) {
      Sequence first = null;
      for (Sequence w : waiting) {
        if (w.queuedNanos <= queuedBy) {
          first = w; // the first this step may admit
          break;
        }
      }
      if (first == null) {
        return;
      }
      boolean fits = running.size() < config.maxNumSeqs() && usedBlocks + first.blocks <= config.numGpuBlocks();
      if (fits) {
        return;
      }
      Sequence victim = null;
      for (Sequence r : running) {
        if (!r.cancelled && r.request.priority() > first.request.priority()
            && (victim == null || BY_PRIORITY.compare(r, victim) >= 0)) { // ties: the latest admitted
          victim = r;
        }
      }
      if (victim == null) {
        return;
      }
      running.remove(victim);
      usedBlocks -= victim.blocks;
      victim.preempted = true;
      victim.queuedNanos = Long.MIN_VALUE; // back at once, as vLLM's scheduler re-queues it in the same step
      metrics.preempted();
      waiting.add(victim);
      waiting.sort(BY_PRIORITY);
    }
  }

  /** Every running sequence gets one token; finished and cancelled ones release their blocks. */
  private void completeStep() {
    long now = scheduler.nanoTime();
    for (Iterator<Sequence> it = running.iterator(); it.hasNext();) {
      Sequence s = it.next();
      if (s.cancelled) {
        it.remove();
        usedBlocks -= s.blocks;
        continue;
      }
      if (s.prefillLeft > 0) {
        continue; // its prompt is still being prefilled, chunk by chunk
      }
      int index = s.generated++;
      metrics.token(index == 0, (now - (index == 0 ? s.arrivedNanos : s.lastTokenNanos)) / 1e9);
      s.lastTokenNanos = now;
      s.listener.onToken(Words.next(s.words, index), index);
      if (s.generated >= s.request.maxTokens()) {
        it.remove();
        usedBlocks -= s.blocks;
        String reason = s.request.lengthCapped() ? "length" : "stop";
        metrics.finished(reason, (now - s.arrivedNanos) / 1e9);
        s.listener.onFinished(new SequenceListener.Usage(s.request.promptTokens(), s.generated, s.cachedTokens),
            reason);
      }
    }
    runningNow = running.size();
    metrics.loraStep(runningAdapters(), waitingAdapters(), nowEpochSeconds());
    if (running.isEmpty() && waiting.isEmpty()) {
      stepping = false;
    } else {
      // with async scheduling the next step was chosen when this one started, unless nothing was left to run
      step(config.asyncScheduling() && !running.isEmpty() ? stepStartNanos : Long.MAX_VALUE);
    }
  }

  public SimConfig config() {
    return config;
  }

  public EngineMetrics metrics() {
    return metrics;
  }

  AdapterTiers tiers() {
    return tiers;
  }

  /** Sequences in the running batch; safe from any thread. */
  public int runningCount() {
    return runningNow;
  }

  public int waitingCount() {
    return waiting.size();
  }

  public double kvCacheUsage() {
    return (double) usedBlocks / config.numGpuBlocks();
  }

  /** Adapters of the running batch: the GPU slots that cannot be given up. */
  public Set<String> runningAdapters() {
    return Sequence.adaptersOf(running);
  }

  public Set<String> waitingAdapters() {
    return Sequence.adaptersOf(waiting);
  }

  /** Registered adapters and their paths, in registration order. */
  public Map<String, String> adapters() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(tiers.registered()));
  }

  double nowEpochSeconds() {
    return (startEpochMillis + (scheduler.nanoTime() - startNanos) / 1_000_000L) / 1000.0;
  }
}
