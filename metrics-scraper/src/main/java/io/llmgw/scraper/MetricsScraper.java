package io.llmgw.scraper;

import io.llmgw.picker.PodMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls every endpoint's metrics with non-blocking HTTP ({@link HttpPages}). At most one scrape per endpoint is in
 * flight (a slow pod is skipped, never piled onto), at most {@code maxConcurrent} overall, and each round and all
 * parsing run on the client's one event loop, so scraping is bounded to about one core however many pods there are.
 */
public final class MetricsScraper implements ScrapeStates, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsScraper.class);
  /** How long a pod that did not answer a filtered page is read whole before the filter is tried on it again. */
  static final long FILTER_RETRY_MILLIS = 10 * 60_000;
  /** Far above any real model server's page; a pod sending more is treated as failing, not buffered. */
  static final int MAX_BODY_BYTES = 8 << 20;
  private final ScrapeSettings settings;
  private final ScheduledExecutorService scheduler;
  private final HttpPages http;
  private final Clock clock;
  private volatile long lastTickMillis;
  /** Told of every outcome, in the order added (metrics first, then whoever waits for fresh metrics). */
  private final List<ScrapeListener> listeners = new CopyOnWriteArrayList<>();
  private final Semaphore permits;
  private final Map<String, ScrapeSlot> slots = new ConcurrentHashMap<>();
  private volatile ScrapeSlot[] order = new ScrapeSlot[0];
  private int cursor;
  private volatile ScheduledFuture<?> ticker;
  private volatile boolean closed;

  public MetricsScraper(ScrapeSettings settings, ScheduledExecutorService scheduler, Clock clock,
      ScrapeListener listener) {
    this.settings = settings;
    this.scheduler = scheduler;
    this.clock = clock;
    this.lastTickMillis = clock.millis();
    this.listeners.add(listener);
    this.permits = new Semaphore(settings.maxConcurrent());
    this.http = new HttpPages(settings.timeout(), MAX_BODY_BYTES);
  }

  /**
   * Replaces the set of endpoints; state of endpoints that stay is kept, that of departed ones dropped. A departed
   * endpoint's scrape still in flight tells no listener when it ends: once this returns, nothing about it is reported
   * (so the EPP's series of a pod that left are not brought back by a late answer).
   */
  @Override
  public void setTargets(Collection<ScrapeTarget> targets) {
    Map<String, ScrapeSlot> next = new HashMap<>();
    for (ScrapeTarget t : targets) {
      ScrapeSlot old = slots.get(t.address());
      next.put(t.address(),
          old != null && old.target.equals(t) ? old : new ScrapeSlot(t, settings.adapterWarmWindow()));
    }
    for (ScrapeSlot s : slots.values()) {
      if (next.get(s.target.address()) != s) {
        synchronized (s) {
          s.retired = true;
        }
      }
    }
    slots.putAll(next);
    slots.keySet().retainAll(next.keySet());
    order = slots.values().toArray(new ScrapeSlot[0]);
    http.retain(Set.copyOf(next.keySet()));
  }

  public void start() {
    long nanos = settings.interval().toNanos();
    // each round runs on the HTTP client's loop, so its requests start there without a hand-off each
    ticker = scheduler.scheduleAtFixedRate(() -> http.round(this::tick), 0, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Starts a scrape for every endpoint that has none in flight, while permits last. Each tick resumes where the last
   * one ran out of permits, so with more endpoints than permits every endpoint still gets its turn.
   */
  public synchronized void tick() {
    ScrapeSlot[] all = order;
    long now = clock.millis();
    lastTickMillis = now;
    for (int i = 0; i < all.length; i++) {
      int at = (cursor + i) % all.length;
      ScrapeSlot slot = all[at];
      if (!slot.inFlight.compareAndSet(false, true)) {
        continue;
      }
      if (!permits.tryAcquire()) {
        slot.inFlight.set(false);
        cursor = at;
        return;
      }
      boolean wantModels = now - slot.modelsFetchedAt >= settings.modelsInterval().toMillis();
      scrape(slot, wantModels);
    }
  }

  /** When the scraper last started its round (clock millis): a scraper whose ticks stop has died. */
  public long lastTickMillis() {
    return lastTickMillis;
  }

  /** Another observer of scrape outcomes, after those given so far. */
  @Override
  public void addListener(ScrapeListener listener) {
    listeners.add(listener);
  }

  private void failed(ScrapeSlot slot, String what, String error) {
    synchronized (slot) {
      if (slot.retired || closed) { // requests cut short by close() are no news about the pod
        return;
      }
      for (ScrapeListener l : listeners) {
        l.failed(slot.target.address(), what, error);
      }
    }
  }

  @Override
  public ScrapeState state(String address) {
    ScrapeSlot slot = slots.get(address);
    return slot == null ? ScrapeState.INITIAL : slot.state;
  }

  private void scrape(ScrapeSlot slot, boolean wantModels) {
    String address = slot.target.address();
    // the report describes the pod at some moment after this: what the gateway sends from now on may be missing from it
    Instant requestedAt = clock.instant();
    String path = slot.filterRefused(requestedAt.toEpochMilli()) ? Engine.WHOLE_PAGE
        : slot.target.engine().metricsPath();
    boolean filtered = !path.equals(Engine.WHOLE_PAGE);
    try {
      http.get(address, path, new HttpPages.Reader() {
        @Override
        public void page(int status, byte[] body, int length) {
          try {
            onMetrics(slot, status, body, length, requestedAt, filtered);
          } finally {
            done(slot, wantModels);
          }
        }

        @Override
        public void failed(Throwable error) {
          try {
            fail(slot, describe(error));
          } finally {
            done(slot, wantModels);
          }
        }
      });
    } catch (RuntimeException e) {
      permits.release();
      slot.inFlight.set(false);
      fail(slot, "cannot send: " + e.getMessage());
    }
  }

  private void done(ScrapeSlot slot, boolean wantModels) {
    try {
      if (wantModels && slot.state.healthy()) {
        slot.modelsFetchedAt = clock.millis();
        fetchModels(slot);
        if (slot.target.engine().cacheConfigPath() != null) {
          fetchCacheSize(slot);
        }
      }
    } finally {
      permits.release();
      slot.inFlight.set(false);
    }
  }

  private void onMetrics(ScrapeSlot slot, int status, byte[] body, int length, Instant requestedAt, boolean filtered) {
    ParsedMetrics parsed = status == 200
        ? PrometheusTextParser.parse(body, 0, length, slot.target.engine().wantedNames()) : null;
    boolean usable = parsed != null && slot.target.engine().reportsLoad(parsed);
    if (filtered && !slot.filterWorked && !usable) {
      // a server that never answered the series asked by name (not vLLM's mount, a proxy in front): the whole page
      // is asked from the next round, with no failure counted, and the filter tried again later
      if (slot.wholePageUntil == 0) { // the first refusal: said once per pod
        LOG.info("endpoint {}: {} did not answer the wanted series ({}); reading the whole /metrics page instead",
            slot.target.address(), slot.target.engine().metricsPath(),
            parsed == null ? "HTTP " + status : "no load metrics in it");
      }
      slot.wholePageUntil = clock.millis() + FILTER_RETRY_MILLIS;
      return;
    }
    if (filtered && usable) {
      slot.filterWorked = true;
    }
    if (parsed == null) {
      fail(slot, "HTTP " + status);
      return;
    }
    if (parsed.skippedLines() > 0 && slot.lastSkipped == 0) {
      LOG.warn("endpoint {}: skipped {} unparseable line(s) of its /metrics", slot.target.address(),
          parsed.skippedLines());
    }
    slot.lastSkipped = parsed.skippedLines();
    if (!usable) {
      fail(slot, "its /metrics has none of " + new TreeSet<>(slot.target.engine().loadMetricNames()) + " ("
          + parsed.skippedLines() + " unparseable lines)");
      return;
    }
    if (!slot.state.healthy() && slot.state.consecutiveFailures() > 0) {
      LOG.info("endpoint {} answers scrapes again after {} failure(s); back in picking", slot.target.address(),
          slot.state.consecutiveFailures());
    }
    PodMetrics m = slot.target.engine().extract(parsed, requestedAt);
    ServedModels models = slot.models;
    Set<String> recent = slot.activity.update(m.runningAdapters(), m.waitingAdapters(), requestedAt);
    slot.state = new ScrapeState(m.withModels(models.adapters(), models.baseModels(), recent), models, true, 0, null);
    synchronized (slot) {
      if (slot.retired) {
        return;
      }
      for (ScrapeListener l : listeners) {
        l.scraped(slot.target.address(), parsed.skippedLines());
      }
    }
  }

  private void fetchModels(ScrapeSlot slot) {
    http.get(slot.target.address(), "/v1/models", new HttpPages.Reader() {
      @Override
      public void page(int status, byte[] body, int length) {
        if (status != 200) {
          modelsFailed(slot, "HTTP " + status);
          return;
        }
        try {
          slot.models = ServedModels.parse(new String(body, 0, length, StandardCharsets.UTF_8));
          slot.modelsFailing = false;
        } catch (Exception e) {
          modelsFailed(slot, "unreadable: " + e.getMessage());
        }
      }

      @Override
      public void failed(Throwable error) {
        modelsFailed(slot, describe(error));
      }
    });
  }

  /**
   * The pod's KV-cache size (what its events may claim to hold, how many requests of a size it can run): static
   * configuration, so read at the model list's pace. A pod that does not say is held to the index's caps alone.
   */
  private void fetchCacheSize(ScrapeSlot slot) {
    http.get(slot.target.address(), slot.target.engine().cacheConfigPath(), new HttpPages.Reader() {
      @Override
      public void page(int status, byte[] body, int length) {
        KvCacheSize size = status == 200 ? slot.target.engine().kvCacheSize(body, 0, length) : null;
        if (size == null) {
          return;
        }
        synchronized (slot) {
          if (slot.retired || closed) {
            return;
          }
          for (ScrapeListener l : listeners) {
            l.kvCacheSize(slot.target.address(), size);
          }
        }
      }

      @Override
      public void failed(Throwable error) {
        // the next round asks again; meanwhile the pod is held to the index's caps
      }
    });
  }

  private void modelsFailed(ScrapeSlot slot, String problem) {
    if (!slot.modelsFailing) {
      LOG.warn("endpoint {}: /v1/models failed ({}); adapter residency from /metrics only", slot.target.address(),
          problem);
    }
    slot.modelsFailing = true;
    failed(slot, "/v1/models", problem);
  }

  private void fail(ScrapeSlot slot, String error) {
    if (closed) {
      return;
    }
    ScrapeState old = slot.state;
    if (old.consecutiveFailures() == 0) {
      LOG.warn("endpoint {}: scrape of /metrics failed ({}); not picked until it answers", slot.target.address(),
          error);
    }
    slot.state = new ScrapeState(old.metrics(), old.models(), false, old.consecutiveFailures() + 1, error);
    failed(slot, "/metrics", error);
  }

  private static String describe(Throwable err) {
    Throwable cause = err.getCause() != null ? err.getCause() : err;
    String msg = cause.getMessage();
    return cause.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
  }

  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> t = ticker;
    if (t != null) {
      t.cancel(false);
    }
    http.close();
  }
}
