package io.llmgw.extproc.flow.controller;

import io.llmgw.api.PoolKey;
import io.llmgw.extproc.flow.core.Admission;
import io.llmgw.extproc.flow.core.FlowItem;
import io.llmgw.extproc.flow.core.FlowQueue;
import io.llmgw.extproc.flow.core.FlowSettings;
import io.llmgw.extproc.flow.core.SharedCounters;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.SaturationDetector;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Late binding in the EPP: requests admitted while their pool is saturated wait here, one {@link FlowQueue} per
 * {@link PoolSet}, and are dispatched when the pool has room again. Dispatch runs when something can have changed — a response
 * ended ({@link #signal()} from the in-flight accounting), fresh metrics arrived (from the scraper), or the oldest
 * request's TTL is due (one timer) — never on a polling loop. Dispatching completes the request's ticket on the
 * dispatcher thread, so the request is routed (and counted in flight) before the next one is considered.
 */
public final class FlowControl {
  private static final Logger LOG = LoggerFactory.getLogger(FlowControl.class);

  private final FlowSettings settings;
  private final SaturationDetector saturation;
  private final Datastore datastore;
  private final Clock clock;
  private final ScheduledExecutorService timer;
  private final Executor dispatcher;
  private final FlowEvents events;
  private final Map<PoolSet, PoolQueue> queues = new LinkedHashMap<>();
  private static final long SHARING_MILLIS = 5_000;
  /** When a request last had to wait: the pool is contended for a while after. */
  private volatile long lastQueuedMillis = Long.MIN_VALUE / 2;
  private final FleetCounters counters = new FleetCounters();
  private final AtomicBoolean signalled = new AtomicBoolean();
  /** Requests in all queues: signals (one per response end, one per scrape) cost nothing while it is zero. */
  private final AtomicInteger queued = new AtomicInteger();
  private long timerDueMillis = Long.MAX_VALUE;

  /**
   * @param dispatcher runs dispatch passes one at a time (a single thread, or a direct executor in tests)
   * @param timer wakes the dispatcher when the oldest waiting request's TTL is due
   */
  public FlowControl(FlowSettings settings, SaturationDetector saturation, Datastore datastore, Clock clock,
      Executor dispatcher, ScheduledExecutorService timer, FlowEvents events) {
    this.settings = settings;
    this.saturation = saturation;
    this.datastore = datastore;
    this.clock = clock;
    this.dispatcher = dispatcher;
    this.timer = timer;
    this.events = events;
  }

  public FlowSettings settings() {
    return settings;
  }

  /** Whether any request waits anywhere: the lock-free question asked before {@link #hasWaiting}. */
  public boolean anyWaiting() {
    return queued.get() > 0;
  }

  /** Requests are waiting for these pools: a newcomer must queue behind them, not overtake them. */
  public synchronized boolean hasWaiting(PoolSet pools) {
    PoolQueue q = queues.get(pools);
    return q != null && !q.queue.isEmpty();
  }

  /**
   * Queues a request. The ticket may already be completed exceptionally (the queue is full); items this one evicted
   * are answered before this returns.
   *
   * @param eligible whether the pool's current state lets this request go now (its latency objective can be met);
   *     asked only when the pool has room
   */
  public Ticket enqueue(List<PoolView> pools, int priority, String flowId, long cost, int weight, long bytes,
      long deadlineMillis, Predicate<List<EndpointState>> eligible) {
    PoolSet key = PoolSet.of(pools);
    Waiter waiter = new Waiter(key, eligible);
    List<FlowItem<Waiter>> evicted;
    synchronized (this) {
      PoolQueue q = queues.computeIfAbsent(key, k -> new PoolQueue(k, new FlowQueue<>(settings, clock,
          counters.of(k))));
      FlowItem<Waiter> item = q.queue.item(priority, flowId, bytes, deadlineMillis, cost, weight, waiter);
      waiter.item = item;
      lastQueuedMillis = clock.millis();
      switch (q.queue.offer(item)) {
        case Admission.Refused<Waiter> r -> {
          waiter.fail(ErrorReply.queueFull(r.reason()), "full", 0, events);
          return waiter;
        }
        case Admission.Queued<Waiter> a -> evicted = a.evicted();
      }
      queued.addAndGet(1 - evicted.size());
      armTimer(q.queue.nextExpiryMillis());
    }
    for (FlowItem<Waiter> e : evicted) {
      e.payload().fail(ErrorReply.evicted(e.priority(), priority), "evicted", waitedSeconds(e), events);
    }
    signal(); // the pool may have room already (the request queued only to keep its place behind others)
    return waiter;
  }

  /**
   * Whether bands are shared by tokens and the pool is contended: requests wait now, or did within
   * {@link #SHARING_MILLIS}. A saturated pool lets some requests through between waits, and what they cost must count;
   * a pool nobody has waited for lately pays nothing for the bookkeeping (a flow that starts waiting is lifted to the
   * others' level anyway).
   */
  public boolean sharing() {
    return settings.fairness() == FlowSettings.Fairness.TOKENS
        && (queued.get() > 0 || clock.millis() - lastQueuedMillis < SHARING_MILLIS);
  }

  /**
   * A request of the flow went on without waiting: its expected tokens count toward the flow's share (token fairness;
   * no lock is taken).
   */
  public void served(List<PoolView> pools, int priority, String flowId, long cost, int weight) {
    if (settings.fairness() == FlowSettings.Fairness.TOKENS) {
      counters.of(pools).add(priority, flowId, (double) cost / Math.max(1, weight));
    }
  }

  /** A request's exchange ended: its flow's share moves from what it was expected to cost to what it used. */
  public void settle(List<PoolView> pools, int priority, String flowId, long expected, long used, int weight) {
    if (settings.fairness() == FlowSettings.Fairness.TOKENS && used != expected) {
      counters.of(pools).add(priority, flowId, (double) (used - expected) / Math.max(1, weight));
    }
  }

  /** Token fairness's counters, which the peer exchange shares with the other replicas. */
  public SharedCounters shared() {
    return counters;
  }

  /** Something changed that may let requests go: a response ended, metrics arrived, a timer fired. */
  public void signal() {
    if (queued.get() > 0 && signalled.compareAndSet(false, true)) {
      dispatcher.execute(this::dispatchPass);
    }
  }

  /** Waiting requests per pool key and priority (highest first), and bytes per pool. */
  public synchronized Map<PoolSet, Map<Integer, Integer>> waitingByPool() {
    Map<PoolSet, Map<Integer, Integer>> out = new LinkedHashMap<>();
    queues.forEach((k, q) -> out.put(k, q.queue.sizeByPriority()));
    return out;
  }

  public synchronized Map<PoolSet, Long> bytesByPool() {
    Map<PoolSet, Long> out = new LinkedHashMap<>();
    queues.forEach((k, q) -> out.put(k, q.queue.bytes()));
    return out;
  }

  /** Requests waiting for this pool, including in queues of routes that span it and other pools. */
  public synchronized int waiting(PoolKey pool) {
    int n = 0;
    for (var e : queues.entrySet()) {
      if (e.getKey().contains(pool)) {
        n += e.getValue().queue.size();
      }
    }
    return n;
  }

  /** One pass over every pool with waiting requests: expire, then dispatch while there is room. */
  void dispatchPass() {
    signalled.set(false);
    try {
      List<PoolQueue> pending;
      synchronized (this) {
        pending = new ArrayList<>(queues.values());
      }
      for (PoolQueue q : pending) {
        drain(q);
      }
      synchronized (this) {
        queues.values().removeIf(q -> q.queue.isEmpty());
        long next = Long.MAX_VALUE;
        for (PoolQueue q : queues.values()) {
          next = Math.min(next, q.queue.nextExpiryMillis());
        }
        timerDueMillis = Long.MAX_VALUE;
        armTimer(next);
      }
    } catch (RuntimeException e) {
      LOG.error("flow control: dispatch pass failed; requests stay queued until the next signal", e);
    }
  }

  private void drain(PoolQueue q) {
    List<FlowItem<Waiter>> expired;
    synchronized (this) {
      expired = q.queue.expire();
      queued.addAndGet(-expired.size());
    }
    if (!expired.isEmpty()) {
      List<PoolView> live = livePools(q);
      boolean hasEndpoints = !datastore.states(live).isEmpty();
      ErrorReply answer = !hasEndpoints && PoolView.mayScaleFromZero(live) ? ErrorReply.expiredAtZero(settings.ttl())
          : ErrorReply.expired(settings.ttl(), hasEndpoints);
      for (FlowItem<Waiter> e : expired) {
        e.payload().fail(answer, "expired", waitedSeconds(e), events);
      }
    }
    while (true) {
      FlowItem<Waiter> next;
      synchronized (this) {
        if (q.queue.isEmpty()) {
          return;
        }
        List<EndpointState> states = datastore.states(livePools(q));
        if (saturation.saturated(states)) {
          return;
        }
        boolean idle = idle(states);
        next = q.queue.poll(item -> idle || item.payload().eligible.test(states));
        if (next != null) {
          queued.decrementAndGet();
        }
      }
      if (next == null) {
        return;
      }
      next.payload().dispatch(waitedSeconds(next), events);
    }
  }

  /** The pools as the current topology has them (pods come and go while requests wait). */
  private List<PoolView> livePools(PoolQueue q) {
    Map<PoolKey, PoolView> now = datastore.topology().poolsByKey();
    List<PoolView> out = new ArrayList<>(q.pools.pools().size());
    for (PoolKey p : q.pools.pools()) {
      PoolView live = now.get(p);
      if (live != null) {
        out.add(live);
      }
    }
    return out;
  }

  /**
   * The pool has endpoints and nothing of ours runs on them: waiting for a better moment cannot help (and the latency
   * model may be wrong), so objectives do not hold requests back.
   */
  public static boolean idle(List<EndpointState> states) {
    for (EndpointState s : states) {
      if (s.inFlight().total() > 0) {
        return false;
      }
    }
    return !states.isEmpty();
  }

  private double waitedSeconds(FlowItem<?> item) {
    return Math.max(0, clock.millis() - item.enqueuedAtMillis()) / 1000.0;
  }

  /** Caller holds the lock. */
  private void armTimer(long dueMillis) {
    if (dueMillis == Long.MAX_VALUE || dueMillis >= timerDueMillis || timer == null) {
      return;
    }
    timerDueMillis = dueMillis;
    long delay = Math.max(1, dueMillis - clock.millis());
    timer.schedule(this::signal, delay, TimeUnit.MILLISECONDS);
  }

  private record PoolQueue(PoolSet pools, FlowQueue<Waiter> queue) {}

  /** The payload of one queued request, and its ticket. */
  private final class Waiter implements Ticket {
    final PoolSet pools;
    final Predicate<List<EndpointState>> eligible;
    final CompletableFuture<Optional<ErrorReply>> future = new CompletableFuture<>();
    FlowItem<Waiter> item;

    Waiter(PoolSet pools, Predicate<List<EndpointState>> eligible) {
      this.pools = pools;
      this.eligible = eligible;
    }

    @Override
    public CompletableFuture<Optional<ErrorReply>> outcome() {
      return future;
    }

    @Override
    public void cancel() {
      boolean removed;
      synchronized (FlowControl.this) {
        PoolQueue q = queues.get(pools);
        removed = q != null && q.queue.remove(item);
        if (removed) {
          queued.decrementAndGet();
        }
      }
      if (removed) {
        events.left(pools.toString(), item.priority(), "cancelled", waitedSeconds(item));
        future.cancel(false);
      }
    }

    void dispatch(double waited, FlowEvents ev) {
      ev.left(pools.toString(), item.priority(), "dispatched", waited);
      future.complete(Optional.empty());
    }

    /** @param outcome {@code full}, {@code evicted} or {@code expired}: the label it is counted under */
    void fail(ErrorReply reply, String outcome, double waited, FlowEvents ev) {
      ev.left(pools.toString(), item.priority(), outcome, waited);
      future.complete(Optional.of(reply));
    }
  }
}
