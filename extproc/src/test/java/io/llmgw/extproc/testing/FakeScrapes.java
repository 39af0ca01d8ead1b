package io.llmgw.extproc.testing;

import io.llmgw.picker.PodMetrics;
import io.llmgw.scraper.ScrapeListener;
import io.llmgw.scraper.ScrapeState;
import io.llmgw.scraper.ScrapeStates;
import io.llmgw.scraper.ScrapeTarget;
import io.llmgw.scraper.ServedModels;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Pods' metrics as a test states them, reported fresh by the test's clock; listeners hear each report. */
public final class FakeScrapes implements ScrapeStates {
  private final Clock clock;
  private final Map<String, ScrapeState> states = new ConcurrentHashMap<>();
  private final List<ScrapeListener> listeners = new CopyOnWriteArrayList<>();
  private volatile Collection<ScrapeTarget> targets = List.of();

  public FakeScrapes(Clock clock) {
    this.clock = clock;
  }

  /** The pod reports this queue, KV use and the adapters it holds; its base model is {@code base}. */
  public void report(String address, int waiting, int running, double kv, Set<String> adapters) {
    report(address, "base", waiting, kv, adapters, running);
  }

  /** The pod serves {@code base} and holds {@code adapters}, with this queue and KV use, as of now. */
  public void report(String address, String base, int waiting, double kv, Set<String> adapters, int running) {
    PodMetrics m = new PodMetrics(waiting, running, kv, 4, Set.of(), Set.of(), adapters, Set.of(base),
        clock.instant());
    states.put(address, new ScrapeState(m, ServedModels.UNKNOWN, true, 0, null));
    listeners.forEach(l -> l.scraped(address, 0));
  }

  /** The pod is idle but for its batch: {@code running} adapters in it (it takes 4 at once), {@code loaded} held. */
  public void reportBatch(String address, Set<String> running, Set<String> loaded) {
    PodMetrics m = new PodMetrics(0, running.size(), 0.1, 4, running, Set.of(), loaded, Set.of("base"),
        clock.instant());
    states.put(address, new ScrapeState(m, ServedModels.UNKNOWN, true, 0, null));
    listeners.forEach(l -> l.scraped(address, 0));
  }

  public void fail(String address) {
    ScrapeState s = state(address);
    states.put(address, new ScrapeState(s.metrics(), s.models(), false, s.consecutiveFailures() + 1, "refused"));
    listeners.forEach(l -> l.failed(address, "/metrics", "refused"));
  }

  public Collection<ScrapeTarget> targets() {
    return targets;
  }

  @Override
  public void setTargets(Collection<ScrapeTarget> next) {
    targets = List.copyOf(next);
  }

  @Override
  public ScrapeState state(String address) {
    return states.getOrDefault(address, ScrapeState.INITIAL);
  }

  @Override
  public void addListener(ScrapeListener listener) {
    listeners.add(listener);
  }
}
