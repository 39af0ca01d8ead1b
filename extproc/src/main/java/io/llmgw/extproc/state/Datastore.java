package io.llmgw.extproc.state;

import io.llmgw.adapters.LoadableAdapter;
import io.llmgw.api.AdapterTarget;
import io.llmgw.api.ConfigChanges;
import io.llmgw.api.GatewayConfig;
import io.llmgw.api.Variant;
import io.llmgw.picker.AdapterChanges;
import io.llmgw.picker.Endpoint;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Ticker;
import io.llmgw.scraper.ScrapeState;
import io.llmgw.scraper.ScrapeStates;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The EPP's single source of truth: the current topology (swapped atomically on every configuration change), live
 * scrape state and in-flight counts. Cluster mode and file mode both feed it through {@link #apply}.
 */
public final class Datastore {
  private final ScrapeStates scraper;
  private final AdapterChanges adapterChanges;
  private final InFlightTracker inFlight;
  private final PeerLoads peers;
  private final PeerSpend peerSpend;
  private final List<Consumer<Topology>> listeners = new ArrayList<>();
  private volatile Topology topology = Topology.empty();
  private static final int MAX_ROUTELESS = 1024;
  private final Map<String, Routeless> routeless = new ConcurrentHashMap<>();
  private volatile boolean loaded;
  private GatewayConfig applied = GatewayConfig.empty();
  private final ConfigHistory history;

  /**
   * @param adapterChanges this EPP's own adapter loads and unloads, which correct what the pods report
   * @param ticker when in-flight leases were taken (they expire)
   * @param clock the clock that stamps the pods' reports
   */
  public Datastore(ScrapeStates scraper, AdapterChanges adapterChanges, Ticker ticker, Clock clock) {
    this.scraper = scraper;
    this.adapterChanges = adapterChanges;
    this.inFlight = new InFlightTracker(ticker, clock);
    this.peers = new PeerLoads(ticker, PEER_SNAPSHOT_FRESH);
    this.peerSpend = new PeerSpend(ticker, PEER_SNAPSHOT_FRESH);
    this.history = new ConfigHistory(clock);
  }

  /** How long a peer replica's snapshot of its in-flight counts counts (it sends one every 25 ms). */
  private static final Duration PEER_SNAPSHOT_FRESH = Duration.ofMillis(500);

  /** What other replicas have in flight, as they last said (empty without peers). */
  public PeerLoads peers() {
    return peers;
  }

  /** What tenants spent through other replicas, as they last said (empty without peers). */
  public PeerSpend peerSpend() {
    return peerSpend;
  }

  public synchronized void onChange(Consumer<Topology> listener) {
    listeners.add(listener);
  }

  /** Makes {@code config} the one in force; returns what it changed, which the history keeps when it is anything. */
  public synchronized ConfigChanges apply(GatewayConfig config) {
    Topology next = Topology.of(config);
    scraper.setTargets(next.targets());
    topology = next;
    loaded = true;
    ConfigChanges changes = ConfigChanges.between(applied, config);
    applied = config;
    if (!changes.isEmpty()) {
      history.applied(changes.describe());
    }
    for (Consumer<Topology> l : listeners) {
      l.accept(next);
    }
    return changes;
  }

  /** The configuration changes applied and refused lately, newest first. */
  public ConfigHistory history() {
    return history;
  }

  public Topology topology() {
    return topology;
  }

  /** Routes and pods have been loaded at least once. */
  public boolean loaded() {
    return loaded;
  }

  public InFlightTracker inFlight() {
    return inFlight;
  }

  public ScrapeState scrapeState(String address) {
    return scraper.state(address);
  }

  /**
   * Every route target (and variant) that names a {@code source} (loaded on demand), once, with its pools' endpoints
   * as a live view.
   */
  public List<LoadableAdapter> loadableAdapters() {
    Map<String, LoadableAdapter> out = new TreeMap<>();
    for (RouteView v : topology.routesByModel().values()) {
      for (AdapterTarget t : v.route().adapter().targets()) {
        if (t.source() != null) {
          List<PoolView> pools = v.pools();
          out.putIfAbsent(t.name(), new LoadableAdapter(t.name(), t.source(), () -> states(pools)));
        }
      }
      for (Variant variant : v.route().adapter().variants()) {
        if (variant.source() != null) {
          List<PoolView> pools = v.pools().stream().filter(p -> p.key().equals(v.key().pool(variant.pool()))).toList();
          out.putIfAbsent(variant.name(), new LoadableAdapter(variant.name(), variant.source(), () -> states(pools)));
        }
      }
    }
    return List.copyOf(out.values());
  }

  /** Every pool's endpoints, right now (for gauges, the reaper and the admin page). */
  public List<EndpointState> allStates() {
    return states(List.copyOf(topology.poolsByKey().values()));
  }

  /**
   * The route that serves this model in {@code t}: a route's or a rewrite's ({@link Topology#route}), else that of a
   * pool no route names whose pods report serving the model (llm-d's EPP routes every model to its one pool; a model
   * no pod reports is still answered 404 here rather than by the engine). Null when none.
   */
  public RouteView route(Topology t, String model) {
    RouteView view = t.route(model);
    if (view != null) {
      return view;
    }
    for (PoolView pool : t.routelessPools()) {
      for (Endpoint e : pool.endpoints()) {
        ScrapeState s = scraper.state(e.address());
        // what the pod reports, read in place: this runs for every request to such a pool
        if (s.metrics().baseModels().contains(model) || s.metrics().reportsAdapter(model)) {
          return routeless(t, pool, model);
        }
      }
    }
    return null;
  }

  /** A route-less pool's route for one model, made once per configuration rather than per request. */
  private RouteView routeless(Topology t, PoolView pool, String model) {
    Routeless known = routeless.get(model);
    if (known != null && known.topology() == t && known.view().pools().getFirst() == pool) {
      return known.view();
    }
    if (routeless.size() >= MAX_ROUTELESS) {
      routeless.clear(); // pods report the models: a pod reporting thousands must not grow this without end
    }
    RouteView view = Topology.routeless(pool, model);
    routeless.put(model, new Routeless(t, view));
    return view;
  }

  private record Routeless(Topology topology, RouteView view) {}

  /** The endpoints of these pools the proxy's subset hint (null: none) allows, right now. */

  public List<EndpointState> states(List<PoolView> pools, Set<String> subset) {
    return allowed(states(pools), subset);
  }

  /** Those of {@code states} the proxy's subset hint (null: none) allows. */
  public static List<EndpointState> allowed(List<EndpointState> states, Set<String> subset) {
    if (subset == null) {
      return states;
    }
    List<EndpointState> out = new ArrayList<>(states.size());
    for (EndpointState e : states) {
      if (e.endpoint().allowedBy(subset)) {
        out.add(e);
      }
    }
    return out;
  }

  /** The picker's view of these pools' endpoints, right now. */
  public List<EndpointState> states(List<PoolView> pools) {
    int n = 0;
    for (PoolView p : pools) {
      n += p.endpoints().size();
    }
    List<EndpointState> out = new ArrayList<>(n);
    Set<String> seen = pools.size() > 1 ? new HashSet<>() : null;
    for (PoolView p : pools) {
      for (Endpoint e : p.endpoints()) {
        if (seen != null && !seen.add(e.address())) {
          continue;
        }
        ScrapeState s = scraper.state(e.address());
        out.add(new EndpointState(e, s.metrics(), s.healthy(), peers.combine(e.address(),
            inFlight.load(e.address())), adapterChanges));
      }
    }
    return out;
  }
}
