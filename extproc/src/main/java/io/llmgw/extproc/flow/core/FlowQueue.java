package io.llmgw.extproc.flow.core;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The requests one pool holds while it is saturated: strict priority across bands, fair shares by tokens (or round-robin,
 * or strict) across the flows of a band, FCFS (or earliest deadline first) within a flow, limits per band and overall, a TTL. Not thread-safe
 * and does no I/O: the caller serialises access and decides when to dispatch.
 *
 * <p>When a limit is reached, a newcomer may take the place of a lower-priority request (from the longest flow of the
 * lowest band), or of a request of a longer flow in its own band: longest-queue drop, so one flood
 * cannot crowd a quiet flow out of the queue. The victim is the last its flow would serve (newest under FCFS, latest
 * deadline under EDF). Otherwise the newcomer is refused. Either way someone is told: evicted
 * items are returned for the caller to answer.
 */
public final class FlowQueue<T> {
  private final FlowSettings settings;
  private final TokenCounters counters;
  private final InstantSource clock;
  private final Comparator<FlowItem<T>> withinFlow;
  private final NavigableMap<Integer, Band> bands = new TreeMap<>(Comparator.reverseOrder());
  private final TreeSet<FlowItem<T>> byArrival = new TreeSet<>(
      Comparator.<FlowItem<T>>comparingLong(FlowItem::enqueuedAtMillis).thenComparingLong(FlowItem::sequence));
  private long sequence;
  private int size;
  private long bytes;

  public FlowQueue(FlowSettings settings, InstantSource clock) {
    this(settings, clock, new TokenCounters());
  }

  /** @param counters token fairness's counters, which outlive this queue when it drains (its owner keeps them) */
  public FlowQueue(FlowSettings settings, InstantSource clock, TokenCounters counters) {
    this.counters = counters;
    this.settings = settings;
    this.clock = clock;
    Comparator<FlowItem<T>> fcfs = Comparator.comparingLong(FlowItem::sequence);
    this.withinFlow = settings.ordering() == FlowSettings.Ordering.EDF
        ? Comparator.<FlowItem<T>>comparingLong(FlowItem::deadlineMillis).thenComparing(fcfs)
        : fcfs;
  }

  /** An item stamped with this queue's clock and sequence, not yet offered; it costs 1 token at weight 1. */
  public FlowItem<T> item(int priority, String flowId, long bodyBytes, long deadlineMillis, T payload) {
    return item(priority, flowId, bodyBytes, deadlineMillis, 1, 1, payload);
  }

  /** An item with its expected cost in tokens and its flow's weight (token fairness). */
  public FlowItem<T> item(int priority, String flowId, long bodyBytes, long deadlineMillis, long cost, int weight,
      T payload) {
    return new FlowItem<>(++sequence, priority, flowId, bodyBytes, clock.millis(), deadlineMillis, Math.max(0, cost),
        Math.max(1, weight), payload);
  }

  public Admission<T> offer(FlowItem<T> item) {
    if (item.bytes() > settings.maxBandBytes() || item.bytes() > settings.maxBytes()) {
      return new Admission.Refused<>("the request body alone exceeds the flow-control byte limit");
    }
    List<FlowItem<T>> evicted = new ArrayList<>();
    while (true) {
      Band own = bands.get(item.priority());
      int bandCount = own == null ? 0 : own.size;
      long bandBytes = own == null ? 0 : own.bytes;
      boolean bandFull = bandCount + 1 > settings.maxBandRequests()
          || bandBytes + item.bytes() > settings.maxBandBytes();
      boolean globalFull = size + 1 > settings.maxRequests() || bytes + item.bytes() > settings.maxBytes();
      if (!bandFull && !globalFull) {
        break;
      }
      FlowItem<T> victim = bandFull ? longerFlowVictim(own, item) : victim(item);
      if (victim == null) {
        evicted.forEach(this::insert); // nothing was gained: put them back as they were
        return new Admission.Refused<>(bandFull
            ? "the queue for priority " + item.priority() + " is full"
            : "the flow-control queue is full");
      }
      remove(victim);
      evicted.add(victim);
    }
    insert(item);
    return new Admission.Queued<>(List.copyOf(evicted));
  }

  /** Takes an item out (the client went away); false when it had already left. */
  public boolean remove(FlowItem<T> item) {
    Band band = bands.get(item.priority());
    Flow flow = band == null ? null : band.flows.get(item.flowId());
    if (flow == null || !flow.items.remove(item)) {
      return false;
    }
    byArrival.remove(item);
    size--;
    bytes -= item.bytes();
    band.size--;
    band.bytes -= item.bytes();
    if (flow.items.isEmpty()) {
      band.flows.remove(item.flowId());
    }
    if (band.size == 0) {
      bands.remove(item.priority());
    }
    return true;
  }

  /** Removes and returns every item that has waited for the TTL or longer. */
  public List<FlowItem<T>> expire() {
    long cutoff = clock.millis() - settings.ttl().toMillis();
    List<FlowItem<T>> out = new ArrayList<>();
    while (!byArrival.isEmpty() && byArrival.first().enqueuedAtMillis() <= cutoff) {
      FlowItem<T> first = byArrival.first();
      remove(first);
      out.add(first);
    }
    return out;
  }

  /** When the oldest item expires, by this queue's clock; {@code Long.MAX_VALUE} when empty. */
  public long nextExpiryMillis() {
    return byArrival.isEmpty() ? Long.MAX_VALUE : byArrival.first().enqueuedAtMillis() + settings.ttl().toMillis();
  }

  /**
   * The next item to dispatch from the highest non-empty band, or null. A band whose candidates are all ineligible
   * (their objectives cannot be met right now) blocks the bands below it: lower-priority work must not take the
   * capacity the higher band is waiting for.
   */
  public FlowItem<T> poll(Predicate<FlowItem<T>> eligible) {
    if (bands.isEmpty()) {
      return null;
    }
    Band band = bands.firstEntry().getValue();
    FlowItem<T> chosen = switch (settings.fairness()) {
      case TOKENS -> band.leastServed(eligible);
      case ROUND_ROBIN -> band.roundRobin(eligible);
      case STRICT -> band.oldestEligible(eligible);
    };
    if (chosen != null) {
      remove(chosen);
    }
    return chosen;
  }

  public int size() {
    return size;
  }

  public long bytes() {
    return bytes;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Waiting requests per priority, highest first. */
  public Map<Integer, Integer> sizeByPriority() {
    Map<Integer, Integer> out = new TreeMap<>(Comparator.reverseOrder());
    bands.forEach((p, b) -> out.put(p, b.size));
    return out;
  }

  private void insert(FlowItem<T> item) {
    Band band = bands.computeIfAbsent(item.priority(), Band::new);
    band.flows.computeIfAbsent(item.flowId(), f -> {
      band.joined(f);
      return new Flow(withinFlow);
    }).items.add(item);
    band.size++;
    band.bytes += item.bytes();
    byArrival.add(item);
    size++;
    bytes += item.bytes();
  }

  /** For the global limit: the lowest band below the newcomer first, then its own band's longer flows. */
  private FlowItem<T> victim(FlowItem<T> newcomer) {
    Map.Entry<Integer, Band> lowest = bands.lastEntry();
    if (lowest != null && lowest.getKey() < newcomer.priority()) {
      return lowest.getValue().longestFlow().last();
    }
    return longerFlowVictim(bands.get(newcomer.priority()), newcomer);
  }

  /** The last item of the band's longest flow, if that flow is longer than the newcomer's would become. */
  private FlowItem<T> longerFlowVictim(Band band, FlowItem<T> newcomer) {
    if (band == null) {
      return null;
    }
    Flow longest = band.longestFlow();
    Flow own = band.flows.get(newcomer.flowId());
    int ownAfter = (own == null ? 0 : own.items.size()) + 1;
    return longest != null && longest != own && longest.items.size() > ownAfter ? longest.last() : null;
  }

  private final class Flow {
    final TreeSet<FlowItem<T>> items;

    Flow(Comparator<FlowItem<T>> order) {
      items = new TreeSet<>(order);
    }

    /** The item its flow would serve last: the newest under FCFS, the latest deadline under EDF. */
    FlowItem<T> last() {
      return items.last();
    }
  }

  /** One priority level: its flows in round-robin order (a flow served goes to the back). */
  private final class Band {
    final int priority;
    final Map<String, Flow> flows = new LinkedHashMap<>();
    int size;
    long bytes;

    Band(int priority) {
      this.priority = priority;
    }

    /**
     * A flow starts waiting: it is counted as served no less than the least served flow waiting now (with none
     * waiting, the flow served last), so time spent idle is no credit to spend in a burst, as virtual token counters
     * have it.
     */
    void joined(String flowId) {
      double floor = Double.MAX_VALUE;
      for (String f : flows.keySet()) {
        floor = Math.min(floor, counters.of(priority, f));
      }
      counters.raise(priority, flowId, floor == Double.MAX_VALUE ? counters.lastCharged(priority) : floor);
    }

    /** The eligible head of the flow served the fewest tokens for its weight; ties go to rotation order. */
    FlowItem<T> leastServed(Predicate<FlowItem<T>> eligible) {
      FlowItem<T> best = null;
      double bestServed = Double.MAX_VALUE;
      for (Map.Entry<String, Flow> e : flows.entrySet()) {
        double s = counters.of(priority, e.getKey());
        if (s < bestServed) {
          FlowItem<T> head = e.getValue().items.first();
          if (eligible.test(head)) {
            best = head;
            bestServed = s;
          }
        }
      }
      if (best != null) {
        counters.charge(priority, best.flowId(), (double) best.cost() / best.weight());
        Flow flow = flows.remove(best.flowId()); // to the back: among equals, the others go first next time
        flows.put(best.flowId(), flow);
      }
      return best;
    }

    FlowItem<T> roundRobin(Predicate<FlowItem<T>> eligible) {
      Iterator<Map.Entry<String, Flow>> it = flows.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<String, Flow> e = it.next();
        FlowItem<T> head = e.getValue().items.first();
        if (eligible.test(head)) {
          // to the back of the rotation: re-inserting moves a LinkedHashMap entry last
          Flow flow = e.getValue();
          it.remove();
          flows.put(e.getKey(), flow);
          return head;
        }
      }
      return null;
    }

    FlowItem<T> oldestEligible(Predicate<FlowItem<T>> eligible) {
      List<FlowItem<T>> heads = new ArrayList<>(flows.size());
      for (Flow f : flows.values()) {
        heads.add(f.items.first());
      }
      heads.sort(withinFlow);
      for (FlowItem<T> h : heads) {
        if (eligible.test(h)) {
          return h;
        }
      }
      return null;
    }

    Flow longestFlow() {
      Flow best = null;
      for (Flow f : flows.values()) {
        if (best == null || f.items.size() > best.items.size()) {
          best = f;
        }
      }
      return best;
    }
  }
}
