package io.llmgw.extproc.state;

import io.llmgw.api.GatewayConfig;
import io.llmgw.api.InferenceObjective;
import io.llmgw.api.InferencePool;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.ModelRewrite;
import io.llmgw.api.ObjectiveKey;
import io.llmgw.api.PodInfo;
import io.llmgw.api.PoolKey;
import io.llmgw.api.RouteAdapter;
import io.llmgw.api.TenantBudget;
import io.llmgw.picker.Endpoint;
import io.llmgw.picker.Role;
import io.llmgw.scraper.Engine;
import io.llmgw.scraper.ScrapeTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An immutable view of the configuration, indexed for the request path: model name → route with its pools.
 *
 * @param routesByModel LLMRoutes by the model they serve, then llm-d's rewrites' exact matches (an LLMRoute keeps its
 *     model name; among rewrites the oldest, then its first rule, wins)
 * @param anyModel the route of the oldest rewrite rule without matches, for a model no route names; null when none
 * @param routelessPools the pools no LLMRoute names: each serves, as llm-d serves its pool, every model its
 *     pods report ({@link Datastore#route})
 * @param addresses every endpoint address of every pool, i.e. what is live now
 * @param budgetsByTenant each TenantBudget by the tenant it names
 * @param config what this view was built from, for those who serve it onwards (the xDS server)
 */
public record Topology(Map<String, RouteView> routesByModel, RouteView anyModel, List<PoolView> routelessPools,
    Map<PoolKey, PoolView> poolsByKey,
    Map<ObjectiveKey, InferenceObjective> objectivesByKey, List<ScrapeTarget> targets, Set<String> addresses,
    Map<String, TenantBudget> budgetsByTenant, GatewayConfig config) {
  private static final Logger LOG = LoggerFactory.getLogger(Topology.class);

  public static Topology of(GatewayConfig config) {
    Map<PoolKey, PoolView> pools = new LinkedHashMap<>();
    Map<String, ScrapeTarget> targets = new LinkedHashMap<>();
    Map<Label, List<PodInfo>> byLabel = routablePodsByLabel(config.pods());
    for (InferencePool pool : config.pools()) {
      List<Endpoint> endpoints = new ArrayList<>();
      for (PodInfo pod : candidates(pool, byLabel)) {
        if (!pool.selects(pod)) {
          continue;
        }
        for (int port : ActivePorts.of(pod, pool.targetPorts())) {
          Endpoint e = new Endpoint(pool.name(), pod.name(), pod.podIP(), port, roleOf(pod), pod.labels());
          endpoints.add(e);
          targets.putIfAbsent(e.address(), new ScrapeTarget(e.address(), Engine.fromLabel(pod.engineType())));
        }
      }
      PoolView view = new PoolView(pool, endpoints);
      pools.put(view.key(), view);
    }
    Map<String, RouteView> routes = new HashMap<>();
    for (LLMRoute r : config.routes()) {
      routes.put(r.modelName(), new RouteView(r, poolsOf(r, pools)));
    }
    RouteView anyModel = null;
    for (ModelRewrite w : config.rewrites()) {
      for (LLMRoute r : w.routes()) {
        RouteView view = new RouteView(r, poolsOf(r, pools));
        if (!r.modelName().equals(ModelRewrite.ANY_MODEL)) {
          routes.putIfAbsent(r.modelName(), view);
        } else if (anyModel == null) {
          anyModel = view;
        }
      }
    }
    Map<ObjectiveKey, InferenceObjective> objectives = new HashMap<>();
    for (InferenceObjective o : config.objectives()) {
      objectives.put(o.key(), o);
    }
    Map<String, TenantBudget> budgets = new HashMap<>();
    for (TenantBudget b : config.budgets()) {
      budgets.put(b.name(), b);
    }
    // a rewrite's exact matches leave the pool's other models to pass through, as in llm-d; its rule without matches
    // takes them all before this is asked
    Set<PoolKey> named = new HashSet<>();
    config.routes().forEach(r -> r.poolNames().forEach(n -> named.add(r.key().pool(n))));
    List<PoolView> routeless = pools.values().stream().filter(p -> !named.contains(p.key())).toList();
    return new Topology(Map.copyOf(routes), anyModel, routeless, pools, Map.copyOf(objectives),
        List.copyOf(targets.values()),
        Set.copyOf(targets.keySet()), Map.copyOf(budgets), config);
  }

  /** The route that serves this model name: its own, else a rewrite's that takes any model; null when none. */
  public RouteView route(String model) {
    RouteView view = routesByModel.get(model);
    return view != null ? view : anyModel;
  }

  /** The route a pool no route names serves one model its pods report by: the model itself, at priority 0. */
  static RouteView routeless(PoolView pool, String model) {
    LLMRoute route = new LLMRoute(pool.key().namespace(), pool.key().name(), List.of(pool.key().name()),
        new RouteAdapter(model, 0, List.of(), List.of()));
    return new RouteView(route, List.of(pool));
  }

  /** Every route, the one that takes any model included. */
  public List<RouteView> routes() {
    List<RouteView> out = new ArrayList<>(routesByModel.values());
    if (anyModel != null) {
      out.add(anyModel);
    }
    return out;
  }

  /** The priority of one request: that of the objective it names ({@link #objective}), else the route's. */
  public int priority(RouteView view, InferenceObjective objective) {
    return objective != null ? objective.priority() : view.route().adapter().priority();
  }

  /** The InferenceObjective of this name in the route's namespace for one of the route's pools; null when none. */
  public InferenceObjective objective(RouteView view, String objectiveName) {
    if (objectiveName == null || objectiveName.isBlank()) {
      return null;
    }
    InferenceObjective o = objectivesByKey.get(view.key().objective(objectiveName));
    return o != null && view.route().poolNames().contains(o.poolName()) ? o : null;
  }

  /**
   * Routable pods by {@code namespace/key=value} of each label: a pool then only looks at the pods carrying its rarest
   * selector label, so a namespace with many pools and pods rebuilds in time proportional to pods, not pools × pods.
   */
  private record Label(String namespace, String key, String value) {}

  private static Map<Label, List<PodInfo>> routablePodsByLabel(List<PodInfo> pods) {
    Map<Label, List<PodInfo>> out = new HashMap<>();
    for (PodInfo pod : pods) {
      if (!pod.routable()) {
        continue;
      }
      for (var label : pod.labels().entrySet()) {
        out.computeIfAbsent(new Label(pod.namespace(), label.getKey(), label.getValue()), k -> new ArrayList<>())
            .add(pod);
      }
    }
    return out;
  }

  private static List<PodInfo> candidates(InferencePool pool, Map<Label, List<PodInfo>> byLabel) {
    List<PodInfo> best = null;
    for (var e : pool.selector().entrySet()) {
      List<PodInfo> pods = byLabel.getOrDefault(new Label(pool.namespace(), e.getKey(), e.getValue()), List.of());
      if (best == null || pods.size() < best.size()) {
        best = pods;
      }
    }
    return best == null ? List.of() : best;
  }

  /** The pod's {@link Role} label; a value that names none is said in a warning and serves whole requests. */
  private static Role roleOf(PodInfo pod) {
    String value = pod.labels().get(Role.LABEL);
    Role role = Role.ofLabel(value);
    if (role == null) {
      LOG.warn("pod {}/{}: label {}={} is not prefill, decode or both; it serves whole requests", pod.namespace(),
          pod.name(), Role.LABEL, value);
      return Role.BOTH;
    }
    return role;
  }

  /** The tenant's budget; a tenant no TenantBudget names has no limits. */
  public TenantBudget budget(String tenant) {
    TenantBudget b = budgetsByTenant.get(tenant);
    return b != null ? b : TenantBudget.unlimited(tenant);
  }

  public static Topology empty() {
    return of(GatewayConfig.empty());
  }

  /** The pools a route sends to, in the route's order; unknown references are skipped. */
  private static List<PoolView> poolsOf(LLMRoute route, Map<PoolKey, PoolView> poolsByKey) {
    List<PoolView> out = new ArrayList<>(route.poolNames().size());
    for (String name : route.poolNames()) {
      PoolView v = poolsByKey.get(route.key().pool(name));
      if (v != null) {
        out.add(v);
      }
    }
    return out;
  }
}
