package io.llmgw.batch.dispatch;

import io.llmgw.api.LoadReport;
import io.llmgw.api.LogSampler;
import io.llmgw.api.PoolLoad;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.shared.PeriodicLoop;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.Claim;
import io.llmgw.batch.store.QueueStats;
import io.llmgw.batch.store.QueuedLine;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds queued lines into each pool's spare capacity. Every poll it reads the EPP's load, sizes each pool's
 * {@link Budget}, claims that many lines (earliest deadline first) and sends each on its own virtual thread. A line
 * leaves the queue only when its result is written; one the gateway refused for being full goes back and waits for a
 * fresh reading; if this process dies, its claims return to the queue.
 */
public final class Dispatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  private static final long UNREADABLE_LOG_EVERY_MILLIS = 30_000;
  private static final long STATS_EVERY_MILLIS = 1_000;
  /** A failing store fails every line and every pass: one line per kind per 10 s, with how many were left out. */
  private static final LogSampler SAMPLED = LogSampler.everyTenSeconds();

  private final BatchStore store;
  private final BatchSettings settings;
  private final LoadReader reader;
  private final Forwarder forwarder;
  private final BatchMetrics metrics;
  private final Clock clock;
  private final String owner = "dispatcher-" + UUID.randomUUID();
  /** Each batch's tenant: its lines are sent for it. */
  private final Owners owners;
  private final Map<String, BudgetGate> gates = new ConcurrentHashMap<>();
  private final Map<String, Set<QueuedLine>> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger inFlightTotal = new AtomicInteger();
  /** The bodies of the lines in flight, in chars, which this dispatcher holds until each is answered. */
  private final AtomicLong inFlightChars = new AtomicLong();
  /**
   * An eighth of the heap: a line in flight costs about three times its body (its text, the request's bytes, the
   * answer read), so lines of several megabytes each are claimed a few at a time, small ones as many as the budget lets.
   */
  private final long maxInFlightChars = Runtime.getRuntime().maxMemory() / 8;
  private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
  private volatile LoadReport lastReading;
  private volatile long readingSequence;
  private long lastUnreadableLog = Long.MIN_VALUE / 2;
  /** Why the last reading failed, until one succeeds; null while they do. */
  private volatile String unreadable;
  private long lastExtend;
  private long lastStats = Long.MIN_VALUE / 2; // half: now minus it must not overflow
  private volatile boolean closed;
  private PeriodicLoop loop;
  private final GatewayWatch gateway;

  public Dispatcher(BatchStore store, BatchSettings settings, LoadReader reader, Forwarder forwarder,
      BatchMetrics metrics, Clock clock) {
    this.store = store;
    this.owners = new Owners(store);
    this.settings = settings;
    this.reader = reader;
    this.forwarder = forwarder;
    this.metrics = metrics;
    this.clock = clock;
    this.lastExtend = clock.millis();
    this.gateway = new GatewayWatch(clock, metrics, settings.endpoints().frontDoor());
  }

  public Dispatcher start() {
    loop = PeriodicLoop.start("batch-dispatcher", settings.budget().pollInterval().toMillis(), this::tick, LOG);
    return this;
  }

  /** What holds every pool that its operator must mend or see (the service's {@code /ready} names it); or none. */
  public List<String> problems() {
    List<String> out = new ArrayList<>(2);
    String held = gateway.problem();
    if (held != null) {
      out.add(held);
    }
    String why = unreadable;
    if (why != null) {
      out.add("cannot read the pools' load from the EPP; the service's log says where and why");
    }
    return out;
  }

  /** The last good reading (for mapping models to pools), or null before the first. */
  public LoadReport lastReading() {
    return lastReading;
  }

  /** One pass: read the load, size the budgets, send what they allow. */
  public void tick() {
    long seq = ++readingSequence;
    Map<String, Long> sentWhenAsked = new HashMap<>();
    gates.forEach((pool, gate) -> sentWhenAsked.put(pool, gate.readingStarts()));
    LoadReport reading;
    try {
      reading = reader.read();
    } catch (LoadReader.Unreadable e) {
      if (closed) {
        return; // interrupted by close(): not a failure of the EPP
      }
      metrics.unreadable();
      gates.values().forEach(g -> g.close(settings.budget().baseline()));
      long now = clock.millis();
      if (unreadable == null || now - lastUnreadableLog >= UNREADABLE_LOG_EVERY_MILLIS) {
        LOG.warn("batch dispatcher: cannot read the pools' load ({}); sending nothing until it can", e.getMessage());
        lastUnreadableLog = now;
      }
      unreadable = e.getMessage();
      keepClaims();
      publish();
      return;
    }
    if (unreadable != null) {
      LOG.info("batch dispatcher: the pools' load is readable again");
      unreadable = null;
    }
    lastReading = reading;
    Set<String> seen = new TreeSet<>();
    for (PoolLoad p : reading.pools()) {
      seen.add(p.pool());
      BudgetGate gate = gates.computeIfAbsent(p.pool(), k -> new BudgetGate(settings.budget().baseline(),
          settings.budget().pollInterval().multipliedBy(2), System::nanoTime));
      gate.onReading(
          Budget.of(p, settings.budget().maxSys(p.pool(), p.pods()), settings.budget().baseline(),
              settings.budget().gate()),
          sentWhenAsked.getOrDefault(p.pool(), 0L), seq);
    }
    gates.forEach((pool, gate) -> {
      if (!seen.contains(pool)) {
        gate.close(settings.budget().baseline()); // the pool is gone from the EPP's configuration
      }
    });
    boolean probe = gateway.takeProbe();
    for (Map.Entry<String, BudgetGate> e : gates.entrySet()) {
      if (gateway.away() && !probe) {
        break; // every pool waits for the front door; the probe, when due, goes to the first pool that has room
      }
      try {
        probe &= dispatch(e.getKey(), e.getValue(), probe) == 0;
      } catch (RuntimeException ex) {
        // one pool's queue failing (the store, a line it cannot read) does not hold up the others
        long skipped = SAMPLED.admit("pool-skipped");
        if (skipped >= 0) {
          LOG.warn("batch dispatcher: pool {} skipped this pass: {}{}", e.getKey(), ex.toString(),
              LogSampler.leftOut(skipped));
        }
      }
    }
    if (probe) {
      gateway.probeNotSent();
    }
    keepClaims();
    publish();
  }

  /**
   * Claims what the pool's budget allows and sends it; with {@code probe}, one line only, to see whether the gateway
   * answers again. The number of lines sent.
   */
  private int dispatch(String pool, BudgetGate gate, boolean probe) {
    int room = settings.budget().maxInFlight() - inFlightTotal.get();
    int n = gate.available(probe ? Math.min(1, room) : room);
    if (n <= 0) {
      return 0;
    }
    long chars = maxInFlightChars - inFlightChars.get();
    if (chars <= 0) {
      return 0; // the store takes the first line whatever its size: with nothing in flight, one always goes
    }
    List<Claim> claims = store.claim(pool, n, chars, owner, clock.millis(),
        settings.delivery().visibility().toMillis());
    gate.sent(claims.size());
    for (Claim c : claims) {
      inFlight.computeIfAbsent(pool, k -> ConcurrentHashMap.newKeySet()).add(c.item());
      inFlightTotal.incrementAndGet();
      inFlightChars.addAndGet(c.item().body().length());
      metrics.dispatched(pool);
      senders.execute(() -> send(pool, gate, c, probe));
    }
    return claims.size();
  }

  private void send(String pool, BudgetGate gate, Claim c, boolean probe) {
    try {
      Forwarder.Outcome o = forwarder.send(c, owners.of(c.item().batchId()));
      switch (o.kind()) {
        case UNREACHABLE -> gateway.unreachable(probe, o.detail());
        case CREDENTIALS_REFUSED -> gateway.credentialsRefused(probe, forwarder.credentialsMend(), o.detail());
        default -> gateway.answered();
      }
      switch (o.kind()) {
        case DONE -> {
          if (store.finish(o.result())) {
            if (o.result().ok()) {
              metrics.completed(pool);
            } else {
              metrics.failed(pool, o.reason());
            }
          }
        }
        case THROTTLED -> {
          gate.throttled(readingSequence);
          store.release(c.item(), clock.millis(), true);
          metrics.retried(pool, o.reason());
        }
        case UNREACHABLE, CREDENTIALS_REFUSED -> {
          store.release(c.item(), clock.millis(), true);
          metrics.retried(pool, o.reason());
        }
        case RETRY -> {
          store.release(c.item(), clock.millis() + backoffMillis(c.attempts()), false);
          metrics.retried(pool, o.reason());
        }
        case OWNER_OVER_BUDGET -> { // a budget's window moves in seconds: look again in one
          store.release(c.item(), clock.millis() + 1_000, true);
          metrics.retried(pool, o.reason());
        }
      }
    } catch (RuntimeException e) {
      if (probe) {
        gateway.probeNotSent();
      }
      // the store failed: the claim lapses and the line is delivered again
      long skipped = SAMPLED.admit("line-not-recorded");
      if (skipped >= 0) {
        LOG.warn("batch dispatcher: line {} of {} could not be recorded ({}); it will be sent again{}",
            c.item().line(), c.item().batchId(), e.toString(), LogSampler.leftOut(skipped));
      }
    } finally {
      gate.answered();
      Set<QueuedLine> mine = inFlight.get(pool);
      if (mine != null && mine.remove(c.item())) {
        inFlightTotal.decrementAndGet();
        inFlightChars.addAndGet(-c.item().body().length());
      }
    }
  }

  static long backoffMillis(int attempts) {
    return Math.min(30_000L, 500L << Math.min(attempts, 6));
  }

  /** Renews the claims of lines still in flight, a third of the visibility timeout before they would lapse. */
  private void keepClaims() {
    long now = clock.millis();
    long every = settings.delivery().visibility().toMillis() / 3;
    if (now - lastExtend < every) {
      return;
    }
    lastExtend = now;
    List<QueuedLine> held = new ArrayList<>();
    inFlight.values().forEach(held::addAll);
    if (!held.isEmpty()) {
      store.extend(held, owner, now, settings.delivery().visibility().toMillis());
    }
  }

  /** The budget gauges every pass; the queue gauges, which cost a store query per pool, once a second. */
  private void publish() {
    long now = clock.millis();
    for (Map.Entry<String, BudgetGate> e : gates.entrySet()) {
      metrics.budget(e.getKey(), e.getValue().budget(), inFlight(e.getKey()));
    }
    if (now - lastStats >= STATS_EVERY_MILLIS) {
      lastStats = now;
      Set<String> pools = new TreeSet<>(gates.keySet());
      pools.addAll(store.pools());
      for (String pool : pools) {
        metrics.queue(pool, store.stats(pool), now);
      }
    }
  }

  private int inFlight(String pool) {
    Set<QueuedLine> s = inFlight.get(pool);
    return s == null ? 0 : s.size();
  }

  /** Each pool's queue (read from the store now) and budget. */
  public List<PoolBatchStatus> status() {
    long now = clock.millis();
    Set<String> pools = new TreeSet<>(gates.keySet());
    pools.addAll(store.pools());
    List<PoolBatchStatus> out = new ArrayList<>();
    for (String pool : pools) {
      QueueStats s = store.stats(pool);
      BudgetGate g = gates.get(pool);
      double oldest = s.depth() == 0 ? 0 : Math.max(0, now - s.oldestEnqueuedMillis()) / 1000.0;
      out.add(new PoolBatchStatus(pool, s.depth(), oldest,
          g == null ? Budget.closed(settings.budget().baseline()) : g.budget(),
          inFlight(pool), g != null && g.throttledNow()));
    }
    return out;
  }

  public int inFlightTotal() {
    return inFlightTotal.get();
  }

  /** Stops sending; lines still in flight after a short grace are given back to the queue. */
  @Override
  public void close() {
    closed = true;
    if (loop != null) {
      loop.close();
    }
    senders.shutdown();
    try {
      if (!senders.awaitTermination(5, TimeUnit.SECONDS)) {
        senders.shutdownNow();
      }
    } catch (InterruptedException e) {
      senders.shutdownNow();
      Thread.currentThread().interrupt();
    }
    long now = clock.millis();
    for (Set<QueuedLine> lines : inFlight.values()) {
      for (QueuedLine l : lines) {
        try {
          store.release(l, now, true);
        } catch (RuntimeException e) {
          LOG.warn("batch dispatcher: could not give back line {} of {} ({}); it returns when its claim lapses",
              l.line(), l.batchId(), e.toString());
        }
      }
    }
  }
}
