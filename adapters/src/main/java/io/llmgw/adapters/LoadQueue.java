package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Residency;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads, the model-mesh way: an adapter no reachable pod holds is loaded on the best pod ({@link Placement}); every
 * caller that wants it meanwhile shares that one load; a failed load is retried on other pods and then remembered
 * ({@link FailureRecords}); a full pod first unloads its least recently used idle adapter ({@link Eviction}). Each pod
 * runs at most {@code loadingPerPod} loads; the rest wait in one queue, requests first, then copies, then fills, and
 * start as slots free up.
 */
public final class LoadQueue {
  private static final Logger LOG = LoggerFactory.getLogger(LoadQueue.class);

  /** One load under way: what, where it may go, who waits for it. */
  private record Job(String key, String adapter, String source, Supplier<List<EndpointState>> endpoints,
      Set<String> skip, boolean copy, LoadPriority priority, long seq, long deadlineMillis,
      CompletableFuture<String> result) {}

  /** A load that found no pod with a free loading slot, waiting for one. */
  private record Waiting(Job job, Set<String> tried, String lastError) {}

  private final AdapterRuntime runtime;
  private final AdapterSettings settings;
  private final Clock clock;
  private final AdapterEvents events;
  private final FailureRecords failures;
  private final ResidencyRegistry registry;
  private final UsageTracker usage;
  private final CapacityProbe capacity;
  private final Pins pins;
  private final Eviction eviction;
  private final Map<String, CompletableFuture<String>> loads = new ConcurrentHashMap<>();
  /** Adapters being loaded, per pod (a list: an adapter may be loading twice on one pod, as a load and a copy). */
  private final Map<String, List<String>> loadingOn = new HashMap<>();
  private final PriorityQueue<Waiting> waiting = new PriorityQueue<>(
      Comparator.comparing((Waiting w) -> w.job().priority()).thenComparingLong(w -> w.job().seq()));
  private final AtomicLong jobs = new AtomicLong();

  public LoadQueue(AdapterRuntime runtime, AdapterSettings settings, Clock clock, AdapterEvents events,
      FailureRecords failures, ResidencyRegistry registry, UsageTracker usage, CapacityProbe capacity, Pins pins,
      Eviction eviction) {
    this.runtime = runtime;
    this.settings = settings;
    this.clock = clock;
    this.events = events;
    this.failures = failures;
    this.registry = registry;
    this.usage = usage;
    this.capacity = capacity;
    this.pins = pins;
    this.eviction = eviction;
  }

  /**
   * Completes with the address of a pod holding {@code adapter}: one of {@code endpoints} that holds it already, else
   * the pod it is loaded on from {@code source}, for a waiting request. It ensures a copy; it never adds one. Callers
   * may time their copy out; the shared load goes on for the others.
   */
  public CompletableFuture<String> ensureLoaded(String adapter, String source,
      Supplier<List<EndpointState>> endpoints) {
    Set<String> holders = Residency.holders(adapter, endpoints.get());
    if (!holders.isEmpty()) {
      return CompletableFuture.completedFuture(holders.iterator().next());
    }
    return shared(adapter, source, endpoints, LoadPriority.REQUESTED);
  }

  /** Loads ahead of demand (a rollout's new version, a cheaper variant): the same shared load, no request missed. */
  public CompletableFuture<String> prefetch(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    return shared(adapter, source, endpoints, LoadPriority.COPY);
  }

  /** Loads a recently used adapter back into free room: the lowest priority, after requests and copies. */
  public CompletableFuture<String> fill(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    return shared(adapter, source, endpoints, LoadPriority.FILL);
  }

  /**
   * Adds one more copy of {@code adapter} on a pod that does not hold it yet; completes with that pod. A failed copy
   * is retried elsewhere but never marks the adapter failed.
   */
  public CompletableFuture<String> addCopy(String adapter, String source, Supplier<List<EndpointState>> endpoints) {
    CompletableFuture<String> mine = new CompletableFuture<>();
    String key = adapter + "#copy";
    if (loads.putIfAbsent(key, mine) != null) {
      return CompletableFuture.failedFuture(new LoadFailure(adapter, null, "a copy is being added already"));
    }
    Set<String> holders = Residency.holders(adapter, endpoints.get());
    attempt(job(key, adapter, source, endpoints, holders, true, LoadPriority.COPY, mine), new HashSet<>(), null);
    return mine.copy();
  }

  /** A load of {@code adapter} is under way. */
  public boolean loading(String adapter) {
    return loads.containsKey(adapter);
  }

  /** What is being loaded on one pod now. */
  public synchronized Set<String> loadingOn(String address) {
    return Set.copyOf(loadingOn.getOrDefault(address, List.of()));
  }

  private CompletableFuture<String> shared(String adapter, String source, Supplier<List<EndpointState>> endpoints,
      LoadPriority priority) {
    FailureRecords.Failure failed = failures.adapterFailure(adapter);
    if (failed != null) {
      return CompletableFuture.failedFuture(new LoadFailure(adapter, null, "loading it failed at " + failed.at()
          + " (" + failed.reason() + "); it is tried again " + minutes(settings.failureExpiry()) + " after that"));
    }
    if (priority == LoadPriority.REQUESTED) {
      events.cacheMiss(adapter);
    }
    CompletableFuture<String> mine = new CompletableFuture<>();
    CompletableFuture<String> running = loads.putIfAbsent(adapter, mine);
    if (running != null) {
      return running.copy();
    }
    attempt(job(adapter, adapter, source, endpoints, Set.of(), false, priority, mine), new HashSet<>(), null);
    return mine.copy();
  }

  private Job job(String key, String adapter, String source, Supplier<List<EndpointState>> endpoints,
      Set<String> skip, boolean copy, LoadPriority priority, CompletableFuture<String> result) {
    return new Job(key, adapter, source, endpoints, skip, copy, priority, jobs.incrementAndGet(),
        clock.millis() + settings.loadWaitTimeout().toMillis(), result);
  }

  private void attempt(Job job, Set<String> tried, String lastError) {
    if (tried.size() >= settings.attempts()) {
      giveUp(job, tried, lastError);
      return;
    }
    List<EndpointState> states = job.endpoints().get();
    Placement.Choice choice;
    boolean reachable;
    synchronized (this) {
      List<PodView> views = states.stream().map(this::view).toList();
      Set<String> excluded = new HashSet<>(tried);
      excluded.addAll(job.skip());
      for (PodView v : views) {
        if (failures.failedOn(job.adapter(), v.address())) {
          excluded.add(v.address());
        }
      }
      // loads a request waits for come first: background ones leave a pod's last slot free
      int maxLoading = job.priority().background() ? Math.max(1, settings.loadingPerPod() - 1)
          : settings.loadingPerPod();
      choice = Placement.choose(views, excluded, maxLoading);
      reachable = views.stream().anyMatch(v -> v.healthy() && !excluded.contains(v.address()));
      if (choice != null) {
        loadingOn.computeIfAbsent(choice.address(), a -> new ArrayList<>()).add(job.adapter());
      }
    }
    if (choice == null) {
      noSlot(job, tried, lastError, reachable);
    } else {
      load(job, tried, choice);
    }
  }

  /** No pod may take the load now: wait for a slot until the deadline, or fail. */
  private void noSlot(Job job, Set<String> tried, String lastError, boolean reachable) {
    if (reachable && clock.millis() < job.deadlineMillis()) {
      Waiting w = new Waiting(job, tried, lastError);
      synchronized (this) {
        waiting.add(w);
      }
      CompletableFuture.runAsync(() -> expire(w), CompletableFuture.delayedExecutor(
          Math.max(1, job.deadlineMillis() - clock.millis()), TimeUnit.MILLISECONDS));
    } else if (!tried.isEmpty()) {
      giveUp(job, tried, lastError);
    } else {
      fail(job, reachable ? "every pod that could load it was busy loading others for " + settings.loadWaitTimeout()
          : "no reachable pod to load it on");
    }
  }

  private void load(Job job, Set<String> tried, Placement.Choice choice) {
    String address = choice.address();
    String adapter = job.adapter();
    tried.add(address);
    Instant started = clock.instant();
    CompletableFuture<Void> room = choice.evict() == null ? CompletableFuture.completedFuture(null)
        : eviction.evict(address, choice.evict());
    room.thenCompose(x -> runtime.load(address, adapter, job.source())).whenComplete((ok, error) -> {
      synchronized (this) {
        List<String> here = loadingOn.get(address);
        if (here != null && here.remove(adapter) && here.isEmpty()) {
          loadingOn.remove(address);
        }
      }
      dispatchWaiting();
      if (error == null) {
        loaded(job, address, Duration.between(started, clock.instant()));
        return;
      }
      String reason = LoadFailure.reason(error);
      failures.podFailed(adapter, address, reason);
      events.loadFailed(adapter, address, reason);
      LOG.warn("loading adapter {} on {} failed: {}", adapter, address, reason);
      attempt(job, tried, reason);
    });
  }

  private void loaded(Job job, String address, Duration took) {
    registry.loaded(address, job.adapter());
    usage.used(address, job.adapter());
    failures.succeeded(job.adapter());
    events.loaded(job.adapter(), address, took);
    LOG.info("adapter {} loaded on {} in {} ms{}", job.adapter(), address, took.toMillis(),
        job.copy() ? " (another copy)" : "");
    loads.remove(job.key(), job.result());
    job.result().complete(address);
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
    if (w.tried().isEmpty()) {
      fail(w.job(), "every pod that could load it was busy loading others for "
          + settings.loadWaitTimeout().toMillis() + " ms");
    } else {
      giveUp(w.job(), w.tried(), w.lastError());
    }
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
    fail(job, reason);
  }

  private void fail(Job job, String reason) {
    loads.remove(job.key(), job.result());
    job.result().completeExceptionally(new LoadFailure(job.adapter(), null, reason));
  }

  private PodView view(EndpointState e) {
    Set<String> resident = e.residentAdapters();
    Map<String, Integer> inFlight = new HashMap<>();
    for (String a : resident) {
      inFlight.put(a, e.inFlight().forModel(a));
    }
    return new PodView(e.address(), e.scrapeHealthy(), resident, loadingOn.getOrDefault(e.address(), List.of()).size(),
        usage.lastUsedOn(e.address()), inFlight, pins.all(), capacity.capacity(e.address()));
  }

  synchronized void retain(Set<String> live) {
    loadingOn.keySet().retainAll(live);
  }

  static String minutes(Duration d) {
    return d.toSeconds() % 60 == 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
  }
}
