package io.llmgw.adapters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Residency;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps copies where they are wanted, on each tick: a recently used adapter gets a second copy (a pod can fail without
 * a cache miss); an adapter with a copy busier than {@code busyInFlight} on two ticks running gets one more; an
 * adapter unused for {@code recentWindow} drops back to one copy, which LRU eviction takes when the room is needed;
 * a recently used adapter that was paged out is loaded again while some pod has free room (proactive fill).
 * One change per adapter per tick, so a burst does not thrash. Driven by the EPP's scheduler; tests call {@link #tick}.
 */
public final class CopyScaler {
  private static final Logger LOG = LoggerFactory.getLogger(CopyScaler.class);

  private final LoadQueue loads;
  private final Eviction eviction;
  private final UsageTracker usage;
  private final CapacityProbe capacity;
  private final Supplier<List<LoadableAdapter>> adapters;
  private final CopySettings settings;
  private final Clock clock;
  private Set<String> busyLastTick = Set.of();
  /** The rate tracker: each adapter's use count at each tick within the window, oldest first. */
  private final Map<String, ArrayDeque<long[]>> history = new HashMap<>();

  public CopyScaler(Adapters parts, Supplier<List<LoadableAdapter>> adapters, CopySettings settings, Clock clock) {
    this.loads = parts.loads();
    this.eviction = parts.eviction();
    this.usage = parts.usage();
    this.capacity = parts.capacity();
    this.adapters = adapters;
    this.settings = settings;
    this.clock = clock;
  }

  public synchronized void tick() {
    Instant now = clock.instant();
    Set<String> busyNow = new HashSet<>();
    // most recently used first: fills queue in that order, so free room goes to the adapters likeliest to be asked for
    List<LoadableAdapter> byRecency = new ArrayList<>(adapters.get());
    byRecency.sort(Comparator.comparing((LoadableAdapter a) -> usage.lastUsed(a.name()),
        Comparator.nullsLast(Comparator.reverseOrder())));
    for (LoadableAdapter a : byRecency) {
      try {
        scale(a, now, busyNow);
      } catch (RuntimeException e) {
        LOG.warn("copy scaling of adapter {} failed: {}", a.name(), e.toString());
      }
    }
    busyLastTick = busyNow;
  }

  private void scale(LoadableAdapter a, Instant now, Set<String> busyNow) {
    List<EndpointState> endpoints = a.endpoints().get();
    Set<String> holders = Residency.holders(a.name(), endpoints);
    long usesInWindow = usesInWindow(a.name(), now);
    Instant last = usage.lastUsed(a.name());
    boolean usedInWindow = last != null && Duration.between(last, now).compareTo(settings.recentWindow()) < 0;
    boolean recent = usedInWindow && usesInWindow >= settings.recentUses();
    if (holders.isEmpty()) {
      if (recent && capacity.hasFreeRoom(endpoints)) {
        LOG.info("adapter {}: recently used but paged out; loading it into free room", a.name());
        loads.fill(a.name(), a.source(), a.endpoints());
      }
      return; // otherwise the next request loads it
    }
    boolean busy = endpoints.stream().anyMatch(e -> holders.contains(e.address())
        && e.inFlight().forModel(a.name()) >= settings.busyInFlight());
    if (busy) {
      busyNow.add(a.name());
    }
    if (recent && holders.size() < settings.minCopies()) {
      add(a, "recently used, " + holders.size() + " of " + settings.minCopies() + " copies");
    } else if (busy && busyLastTick.contains(a.name())) {
      add(a, "a copy has stayed above " + settings.busyInFlight() + " requests in flight");
    } else if (!usedInWindow && holders.size() > 1) {
      int dropped = eviction.dropCopies(a.name(), 1, endpoints);
      if (dropped > 0) {
        LOG.info("adapter {}: unused for {} s, dropping {} of {} copies", a.name(),
            settings.recentWindow().toSeconds(), dropped,
            holders.size());
      }
    }
  }

  /** Requests for {@code adapter} within the window, from the use counts recorded at each tick. */
  private long usesInWindow(String adapter, Instant now) {
    var ticks = history.computeIfAbsent(adapter, k -> {
      var first = new ArrayDeque<long[]>();
      first.add(new long[] {now.toEpochMilli(), 0}); // first seen: every use so far counts as recent
      return first;
    });
    long count = usage.uses(adapter);
    ticks.addLast(new long[] {now.toEpochMilli(), count});
    while (ticks.size() > 2 && now.toEpochMilli() - ticks.peekFirst()[0] > settings.recentWindow().toMillis()) {
      ticks.removeFirst();
    }
    return count - ticks.peekFirst()[1];
  }

  private void add(LoadableAdapter a, String why) {
    LOG.info("adapter {}: adding a copy ({})", a.name(), why);
    loads.addCopy(a.name(), a.source(), a.endpoints());
  }
}
