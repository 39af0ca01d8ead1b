package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapters as data, the model-mesh way: an adapter no reachable pod holds is loaded just in time on the best pod
 * ({@link Placement}), every request that wants it meanwhile shares that one load, a failed load is retried on other
 * pods and then remembered ({@link FailureRecords}), and a full pod makes room by unloading its least recently used
 * idle adapter. What pods hold comes from their own reports (the scraped model lists); this class only adds what it did
 * itself in the last seconds, before the next report can show it, so a restarted EPP rebuilds everything from the pods.
 */
public final class AdapterManager {
  private static final Logger LOG = LoggerFactory.getLogger(AdapterManager.class);
  /** How long our own load or unload stands in for the pod's report (the model list is scraped every second). */
  static final Duration OWN_ACTION_TTL = Duration.ofSeconds(10);
  private final java.util.PriorityQueue<Waiting> waiting = new java.util.PriorityQueue<>(
      java.util.Comparator.comparingInt((Waiting w) -> w.job().priority()).thenComparingLong(w -> w.job().seq()));
  private final java.util.concurrent.atomic.AtomicLong jobs = new java.util.concurrent.atomic.AtomicLong();

  private final AdapterRuntime runtime;
  private final AdapterSettings settings;
  private final Clock clock;
  private final AdapterEvents events;
  private final FailureRecords failures;
  private final Map<String, CompletableFuture<String>> loads = new ConcurrentHashMap<>();
  private final Map<String, Integer> loadingPerPod = new HashMap<>();
  private final Map<String, Set<String>> loadingOn = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Instant>> loadedByUs = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Instant>> unloadedByUs = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Instant>> lastUse = new ConcurrentHashMap<>();
  private final Map<String, java.util.concurrent.atomic.LongAdder> uses = new ConcurrentHashMap<>();
  private final Map<String, Instant> lastUseAnywhere = new ConcurrentHashMap<>();
  private final Set<String> pinned = ConcurrentHashMap.newKeySet();
  /** What each pod's runtime reported as its capacity; asked once per pod, the configured value until it answers. */
  private final Map<String, Integer> reportedCapacity = new ConcurrentHashMap<>();
  private final Set<String> capacityAsked = ConcurrentHashMap.newKeySet();
  /** Adapters found resident but not used since this EPP started count as used at its start. */
  private final Instant startedAt;

  public AdapterManager(AdapterRuntime runtime, AdapterSettings settings, Clock clock, AdapterEvents events) {
    this.runtime = runtime;
    this.settings = settings;
    this.clock = clock;
    this.events = events;
    this.failures = new FailureRecords(clock, settings.failureExpiry());
    this.startedAt = clock.instant();
  }

  /** The pod's capacity in adapters: its runtime's own figure once known, else the configured one. */
  int capacity(String address) {
    if (capacityAsked.add(address)) {
      runtime.capacity(address).thenAccept(c -> c.ifPresent(n -> {
        reportedCapacity.put(address, n);
        LOG.info("{} holds at most {} adapters, by its runtime's report", address, n);
      }));
    }
    return reportedCapacity.getOrDefault(address, settings.capacityPerPod());
  }

  /** Keeps {@code adapter} from being evicted or scaled down (a rollout's old and new version while it runs). */
  public void pin(String adapter) {
    pinned.add(adapter);
  }

  public void unpin(String adapter) {
    pinned.remove(adapter);
  }

  /** Some reachable pod holds fewer adapters than its capacity: a load there would evict nothing. */
  public boolean hasFreeRoom(List<EndpointState> endpoints) {
    return endpoints.stream().anyMatch(e -> e.scrapeHealthy() && resident(e).size() < capacity(e.address()));
  }

  /** How many adapters each reachable pod holds. */
  public Map<String, Integer> residentCounts(List<EndpointState> endpoints) {
    Map<String, Integer> out = new java.util.TreeMap<>();
    for (EndpointState e : endpoints) {
      if (e.scrapeHealthy()) {
        out.put(e.address(), resident(e).size());
      }
    }
    return out;
  }

  /**
   * Model-mesh's key number for sizing a pool: how long ago the least recently used adapter still resident anywhere
   * was last used. Small means the pool pages adapters out soon after use (too small); large means idle ones linger.
   */
  public Duration globalLruAge(List<EndpointState> endpoints) {
    Instant oldest = null;
    for (EndpointState e : endpoints) {
      if (!e.scrapeHealthy()) {
        continue;
      }
      Map<String, Instant> uses = lastUse.getOrDefault(e.address(), Map.of());
      for (String a : resident(e)) {
        Instant used = uses.getOrDefault(a, startedAt);
        if (oldest == null || used.isBefore(oldest)) {
          oldest = used;
        }
      }
    }
    return oldest == null ? Duration.ZERO : Duration.between(oldest, clock.instant());
  }

  public AdapterSettings settings() {
    return settings;
  }

  /** The reachable pods among {@code endpoints} that hold {@code adapter} now. On the request path: no copies. */
  public Set<String> residentOn(String adapter, List<EndpointState> endpoints) {
    Set<String> out = new LinkedHashSet<>();
    Instant horizon = clock.instant().minus(OWN_ACTION_TTL);
    for (EndpointState e : endpoints) {
      if (e.scrapeHealthy() && holds(e, adapter, horizon)) {
        out.add(e.address());
      }
    }
    return out;
  }

  /** Whether one pod holds the adapter: our unload or load of the last seconds, else the pod's own report. */
  private boolean holds(EndpointState e, String adapter, Instant horizon) {
    Instant unloaded = unloadedByUs.getOrDefault(e.address(), Map.of()).get(adapter);
    if (unloaded != null && unloaded.isAfter(horizon)) {
      return false;
    }
    Instant loaded = loadedByUs.getOrDefault(e.address(), Map.of()).get(adapter);
    return (loaded != null && loaded.isAfter(horizon)) || e.metrics().loadedAdapters().contains(adapter);
  }

  /** When {@code adapter} was last used on any pod (even one it has left since), or null since this EPP started. */
  public Instant lastUsed(String adapter) {
    return lastUseAnywhere.get(adapter);
  }

  /**
   * Scales {@code adapter} back to {@code keep} copies: unloads it from the idle holders used least recently; busy
   * copies stay. Returns how many unloads it started.
   */
  public int dropCopies(String adapter, int keep, List<EndpointState> endpoints) {
    if (pinned.contains(adapter)) {
      return 0;
    }
    List<EndpointState> holders = endpoints.stream()
        .filter(e -> e.scrapeHealthy() && resident(e).contains(adapter)).sorted(java.util.Comparator.comparing(
            (EndpointState e) -> lastUse.getOrDefault(e.address(), Map.of()).getOrDefault(adapter, Instant.MIN))
            .reversed()).toList();
    int dropped = 0;
    for (EndpointState e : holders.subList(Math.min(keep, holders.size()), holders.size())) {
      if (e.inFlight().forModel(adapter) == 0) {
        dropped += unloadWhereIdle(adapter, List.of(e)) == 0 ? 1 : 0;
      }
    }
    return dropped;
  }

  /** A request was routed to {@code adapter} on {@code address}: it is the most recently used there. */
  public void used(String address, String adapter) {
    Instant now = clock.instant();
    lastUse.computeIfAbsent(address, a -> new ConcurrentHashMap<>()).put(adapter, now);
    lastUseAnywhere.put(adapter, now);
    uses.computeIfAbsent(adapter, a -> new java.util.concurrent.atomic.LongAdder()).increment();
  }

  /** Requests routed to {@code adapter} since this EPP started (the copy scaler's rate tracker reads it). */
  public long uses(String adapter) {
    var n = uses.get(adapter);
    return n == null ? 0 : n.sum();
  }

  /**
   * Completes with the address of a pod holding {@code adapter}, loading it from {@code source} if needed. Callers may
   * time their copy out; the shared load goes on for the others.
   */
  public CompletableFuture<String> ensureLoaded(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    return ensureLoaded(adapter, source, endpoints, REQUESTED);
  }

  /** Loads ahead of demand (a rollout's new version): the same shared load, but no request missed. */
  public CompletableFuture<String> prefetch(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    return ensureLoaded(adapter, source, endpoints, COPY);
  }

  /** Loads a recently used adapter back into free room: the lowest priority, after requests and copies. */
  public CompletableFuture<String> fill(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    return ensureLoaded(adapter, source, endpoints, FILL);
  }

  /**
   * Unloads {@code adapter} from every reachable pod holding it with nothing in flight for it; returns how many pods
   * still hold it (busy ones), so a caller can come back until none does.
   */
  public int unloadWhereIdle(String adapter, List<EndpointState> endpoints) {
    int busy = 0;
    for (EndpointState e : endpoints) {
      if (!e.scrapeHealthy() || !resident(e).contains(adapter)) {
        continue;
      }
      if (e.inFlight().forModel(adapter) > 0) {
        busy++;
        continue;
      }
      String address = e.address();
      unloadedByUs.computeIfAbsent(address, a -> new ConcurrentHashMap<>()).put(adapter, clock.instant());
      runtime.unload(address, adapter).whenComplete((ok, error) -> {
        if (error == null) {
          unloaded(address, adapter);
        } else {
          forget(unloadedByUs, address, adapter);
          LOG.warn("unloading adapter {} from {} failed: {}", adapter, address, reason(error));
        }
      });
    }
    return busy;
  }

  /**
   * Adds one more copy of {@code adapter} on a pod that does not hold it yet (busy or recently used adapters keep
   * several); completes with that pod. A failed copy is retried elsewhere but never marks the adapter failed.
   */
  public CompletableFuture<String> addCopy(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    CompletableFuture<String> mine = new CompletableFuture<>();
    String key = adapter + "#copy";
    if (loads.putIfAbsent(key, mine) != null) {
      return CompletableFuture.failedFuture(new LoadFailure(adapter, null, "a copy is being added already"));
    }
    Set<String> holders = residentOn(adapter, endpoints.get());
    attempt(new Job(key, adapter, source, endpoints, holders, true, COPY, jobs.incrementAndGet(),
        System.nanoTime() + settings.loadWaitTimeout().toNanos(), mine), new HashSet<>(), null);
    return mine.copy();
  }

  /** One load under way: what, where it may go, and who waits for it. */
  private record Job(String key, String adapter, String source, Supplier<List<EndpointState>> endpoints,
      Set<String> skip, boolean copy, int priority, long seq, long deadline, CompletableFuture<String> result) {
    /** Not for a waiting request: may not take a pod's last loading slot. */
    boolean background() {
      return priority > REQUESTED;
    }
  }

  /** A load that found no pod with a free loading slot, waiting for one to free up. */
  private record Waiting(Job job, Set<String> tried, String lastError) {}

  /** Load priorities (model-mesh's order): a request waiting, then copies and rollouts, then filling free room. */
  static final int REQUESTED = 0;
  static final int COPY = 1;
  static final int FILL = 2;

  private CompletableFuture<String> ensureLoaded(String adapter, String source,
      Supplier<List<EndpointState>> endpoints, int priority) {
    FailureRecords.Failure failed = failures.adapterFailure(adapter);
    if (failed != null) {
      return CompletableFuture.failedFuture(new LoadFailure(adapter, null, "loading it failed at " + failed.at()
          + " (" + failed.reason() + "); it is tried again " + minutes(settings.failureExpiry()) + " after that"));
    }
    if (priority == REQUESTED) {
      events.cacheMiss(adapter);
    }
    CompletableFuture<String> mine = new CompletableFuture<>();
    CompletableFuture<String> running = loads.putIfAbsent(adapter, mine);
    if (running != null) {
      return running.copy();
    }
    attempt(new Job(adapter, adapter, source, endpoints, Set.of(), false, priority, jobs.incrementAndGet(),
        System.nanoTime() + settings.loadWaitTimeout().toNanos(), mine), new HashSet<>(), null);
    return mine.copy();
  }

  private void attempt(Job job, Set<String> tried, String lastError) {
    String adapter = job.adapter();
    CompletableFuture<String> result = job.result();
    if (tried.size() >= settings.attempts()) {
      giveUp(job, tried, lastError);
      return;
    }
    List<EndpointState> states = job.endpoints().get();
    Placement.Choice choice;
    boolean busy;
    synchronized (this) {
      List<PodView> views = states.stream().map(this::view).toList();
      Set<String> excluded = new HashSet<>(tried);
      excluded.addAll(job.skip());
      for (PodView v : views) {
        if (failures.failedOn(adapter, v.address())) {
          excluded.add(v.address());
        }
      }
      // loads a request waits for come first: background ones (copies, prefetches) leave a pod's last slot free
      int maxLoading = job.background() ? Math.max(1, settings.loadingPerPod() - 1) : settings.loadingPerPod();
      choice = Placement.choose(views, excluded, maxLoading);
      busy = views.stream().anyMatch(v -> v.healthy() && !excluded.contains(v.address()));
      if (choice != null) {
        loadingPerPod.merge(choice.address(), 1, Integer::sum);
        loadingOn.computeIfAbsent(choice.address(), a -> ConcurrentHashMap.newKeySet()).add(adapter);
      }
    }
    if (choice == null) {
      if (busy && System.nanoTime() < job.deadline()) {
        Waiting w = new Waiting(job, tried, lastError);
        synchronized (this) {
          waiting.add(w);
        }
        CompletableFuture.runAsync(() -> expire(w), CompletableFuture.delayedExecutor(
            Math.max(1, job.deadline() - System.nanoTime()), TimeUnit.NANOSECONDS));
      } else if (!tried.isEmpty()) {
        giveUp(job, tried, lastError);
      } else {
        loads.remove(job.key(), result);
        result.completeExceptionally(new LoadFailure(adapter, null, busy
            ? "every pod that could load it was busy loading others for " + settings.loadWaitTimeout()
            : "no reachable pod to load it on"));
      }
      return;
    }
    String address = choice.address();
    tried.add(address);
    Instant started = clock.instant();
    CompletableFuture<Void> room = choice.evict() == null
        ? CompletableFuture.completedFuture(null)
        : runtime.unload(address, choice.evict()).thenRun(() -> unloaded(address, choice.evict()));
    room.thenCompose(x -> runtime.load(address, adapter, job.source())).whenComplete((ok, error) -> {
      synchronized (this) {
        loadingPerPod.computeIfPresent(address, (a, n) -> n > 1 ? n - 1 : null);
        loadingOn.getOrDefault(address, Set.of()).remove(adapter);
      }
      dispatchWaiting();
      if (error == null) {
        Instant now = clock.instant();
        loadedByUs.computeIfAbsent(address, a -> new ConcurrentHashMap<>()).put(adapter, now);
        forget(unloadedByUs, address, adapter);
        used(address, adapter);
        failures.succeeded(adapter);
        events.loaded(adapter, address, Duration.between(started, now));
        LOG.info("adapter {} loaded on {} in {} ms{}", adapter, address, Duration.between(started, now).toMillis(),
            job.copy() ? " (another copy)" : "");
        loads.remove(job.key(), result);
        result.complete(address);
        return;
      }
      String reason = reason(error);
      failures.podFailed(adapter, address, reason);
      events.loadFailed(adapter, address, reason);
      LOG.warn("loading adapter {} on {} failed: {}", adapter, address, reason);
      attempt(job, tried, reason);
    });
  }

  /** A loading slot came free: the waiting loads try again, highest priority and oldest first. */
  private void dispatchWaiting() {
    List<Waiting> ready = new ArrayList<>();
    synchronized (this) {
      while (!waiting.isEmpty()) {
        ready.add(waiting.poll());
      }
    }
    for (Waiting w : ready) {
      attempt(w.job(), w.tried(), w.lastError()); // takes a slot, or waits again in its place
    }
  }

  /** Still waiting at its deadline: no slot came free in time. */
  private void expire(Waiting w) {
    synchronized (this) {
      if (!waiting.remove(w)) {
        return;
      }
    }
    if (!w.tried().isEmpty()) {
      giveUp(w.job(), w.tried(), w.lastError());
      return;
    }
    loads.remove(w.job().key(), w.job().result());
    w.job().result().completeExceptionally(new LoadFailure(w.job().adapter(), null,
        "every pod that could load it was busy loading others for " + settings.loadWaitTimeout()));
  }

  private void giveUp(Job job, Set<String> tried, String lastError) {
    String reason = "could not be loaded on " + tried.size() + (tried.size() == 1 ? " pod" : " pods")
        + "; last error: " + lastError;
    if (job.copy()) {
      LOG.info("another copy of adapter {} {}", job.adapter(), reason);
    } else {
      failures.adapterFailed(job.adapter(), lastError);
      LOG.error("adapter {} {}; requests for it get 503 for {}", job.adapter(), reason,
          minutes(settings.failureExpiry()));
    }
    loads.remove(job.key(), job.result());
    job.result().completeExceptionally(new LoadFailure(job.adapter(), null, reason));
  }

  private void unloaded(String address, String adapter) {
    unloadedByUs.computeIfAbsent(address, a -> new ConcurrentHashMap<>()).put(adapter, clock.instant());
    forget(loadedByUs, address, adapter);
    forget(lastUse, address, adapter);
    events.unloaded(adapter, address);
    LOG.info("adapter {} unloaded from {}", adapter, address);
  }

  /** What one pod holds: its report, plus our loads and minus our unloads of the last seconds. */
  private Set<String> resident(EndpointState e) {
    Set<String> out = new HashSet<>(e.metrics().loadedAdapters());
    Instant horizon = clock.instant().minus(OWN_ACTION_TTL);
    loadedByUs.getOrDefault(e.address(), Map.of()).forEach((a, at) -> {
      if (at.isAfter(horizon)) {
        out.add(a);
      }
    });
    unloadedByUs.getOrDefault(e.address(), Map.of()).forEach((a, at) -> {
      if (at.isAfter(horizon)) {
        out.remove(a);
      }
    });
    return out;
  }

  private PodView view(EndpointState e) {
    Set<String> resident = resident(e);
    Map<String, Integer> inFlight = new HashMap<>();
    for (String a : resident) {
      inFlight.put(a, e.inFlight().forModel(a));
    }
    return new PodView(e.address(), e.scrapeHealthy(), resident, loadingPerPod.getOrDefault(e.address(), 0),
        Map.copyOf(lastUse.getOrDefault(e.address(), Map.of())), inFlight, Set.copyOf(pinned), capacity(e.address()));
  }

  /**
   * The reaper (model-mesh's, every 7 minutes): drops expired failure records, our own actions the pods' reports have
   * long replaced, and what we remember of pods that are gone, so nothing grows with churn. Returns what it dropped.
   */
  public int reap(List<EndpointState> endpoints) {
    int dropped = failures.reap();
    Instant horizon = clock.instant().minus(OWN_ACTION_TTL);
    for (Map<String, Map<String, Instant>> byPod : List.of(loadedByUs, unloadedByUs)) {
      for (Map<String, Instant> m : byPod.values()) {
        int n = m.size();
        m.values().removeIf(at -> !at.isAfter(horizon));
        dropped += n - m.size();
      }
    }
    Set<String> live = new HashSet<>();
    endpoints.forEach(e -> live.add(e.address()));
    for (Map<String, ?> byPod : List.of(loadedByUs, unloadedByUs, lastUse, loadingOn)) {
      byPod.keySet().retainAll(live);
    }
    return dropped;
  }

  /** Failure records held (expired ones included until read or reaped). */
  int failureRecords() {
    return failures.size();
  }

  /** The residency registry, pod by pod, for operators. */
  public List<PodResidency> pods(List<EndpointState> endpoints) {
    List<PodResidency> out = new ArrayList<>();
    for (EndpointState e : endpoints) {
      Set<String> active = new java.util.TreeSet<>(e.metrics().runningAdapters());
      active.addAll(e.metrics().waitingAdapters());
      out.add(new PodResidency(e.address(), capacity(e.address()), List.copyOf(new java.util.TreeSet<>(resident(e))),
          List.copyOf(active), List.copyOf(new java.util.TreeSet<>(loadingOn.getOrDefault(e.address(), Set.of()))),
          failures.on(e.address())));
    }
    return out;
  }

  /** Every adapter in {@code adapters}, as operators see it across {@code endpoints}. */
  public List<AdapterStatus> status(Collection<String> adapters, List<EndpointState> endpoints) {
    List<AdapterStatus> out = new ArrayList<>();
    for (String adapter : adapters) {
      List<String> pods = List.copyOf(residentOn(adapter, endpoints));
      FailureRecords.Failure f = failures.adapterFailure(adapter);
      AdapterStatus.State state = loads.containsKey(adapter) ? AdapterStatus.State.LOADING
          : !pods.isEmpty() ? AdapterStatus.State.LOADED
          : f != null ? AdapterStatus.State.LOADING_FAILED
          : AdapterStatus.State.NOT_LOADED;
      out.add(new AdapterStatus(adapter, state, pods, f == null ? null : f.at(), f == null ? null : f.reason()));
    }
    return out;
  }

  private static void forget(Map<String, Map<String, Instant>> byPod, String address, String adapter) {
    Map<String, Instant> m = byPod.get(address);
    if (m != null) {
      m.remove(adapter);
    }
  }

  private static String minutes(Duration d) {
    return d.toSeconds() % 60 == 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
  }

  private static String reason(Throwable error) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof LoadFailure ? e.getMessage() : e.toString();
  }
}
