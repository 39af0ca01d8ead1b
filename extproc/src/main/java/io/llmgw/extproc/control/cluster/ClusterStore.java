package io.llmgw.extproc.control.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.llmgw.api.ClusterObjects;
import io.llmgw.api.ConfigException;
import io.llmgw.api.GatewayConfig;
import io.llmgw.api.InferenceObjective;
import io.llmgw.api.InferencePool;
import io.llmgw.api.LLMRoute;
import io.llmgw.api.ModelRewrite;
import io.llmgw.api.PodInfo;
import io.llmgw.api.TenantBudget;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's objects as the informers last delivered them, updated one event at a time, and the rules that turn
 * them into one {@link GatewayConfig}: invalid objects are left out (and named), the oldest route wins a model name, and
 * llm-d's model rewrites are handed on oldest first, the order of their precedence.
 * Thread-safe; informers write from their own threads while the control loop reads snapshots.
 */
final class ClusterStore {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterStore.class);
  static final String REASON_INVALID = "Invalid";
  static final String REASON_MODEL_CONFLICT = "ModelConflict";

  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final Map<Kinds.Key, Seen<InferencePool>> pools = new ConcurrentHashMap<>();
  private final Map<Kinds.Key, Seen<LLMRoute>> routes = new ConcurrentHashMap<>();
  private final Map<Kinds.Key, Seen<InferenceObjective>> objectives = new ConcurrentHashMap<>();
  private final Map<Kinds.Key, Seen<InferenceObjective>> llmdObjectives = new ConcurrentHashMap<>();
  private final Map<Kinds.Key, Seen<ModelRewrite>> rewrites = new ConcurrentHashMap<>();
  private final Map<Kinds.Key, Seen<TenantBudget>> budgets = new ConcurrentHashMap<>();
  private final BudgetRoutes budgetRoutes = new BudgetRoutes();
  private final Map<Kinds.Key, PodInfo> pods = new ConcurrentHashMap<>();
  private final boolean poolsSelectedByLabel;

  /** @param poolsSelectedByLabel only some pools of the namespace are this EPP's; routes to others are not its business */
  ClusterStore(boolean poolsSelectedByLabel) {
    this.poolsSelectedByLabel = poolsSelectedByLabel;
  }

  void putPool(GenericKubernetesResource r) {
    pools.put(key(r), parse(r, ClusterObjects::pool));
  }

  void putRoute(GenericKubernetesResource r) {
    routes.put(key(r), parse(r, ClusterObjects::route));
  }

  void putObjective(GenericKubernetesResource r) {
    objectives.put(key(r), parse(r, ClusterObjects::objective));
  }

  void putLlmdObjective(GenericKubernetesResource r) {
    llmdObjectives.put(key(r), parse(r, ClusterObjects::objective));
  }

  void removeLlmdObjective(GenericKubernetesResource r) {
    llmdObjectives.remove(key(r));
  }

  void putRewrite(GenericKubernetesResource r) {
    rewrites.put(key(r), parse(r, ClusterObjects::modelRewrite));
  }

  void removeRewrite(GenericKubernetesResource r) {
    rewrites.remove(key(r));
  }

  void putBudget(GenericKubernetesResource r) {
    budgets.put(key(r), parse(r, ClusterObjects::budget));
  }

  void removeBudget(GenericKubernetesResource r) {
    budgets.remove(key(r));
  }

  void removePool(GenericKubernetesResource r) {
    pools.remove(key(r));
  }

  void removeRoute(GenericKubernetesResource r) {
    routes.remove(key(r));
  }

  void removeObjective(GenericKubernetesResource r) {
    objectives.remove(key(r));
  }

  void putPod(Pod pod) {
    pods.put(Kinds.key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()), podInfo(pod));
  }

  void removePod(Pod pod) {
    pods.remove(Kinds.key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
  }

  /** The route as last seen, for writing its status; null once deleted. */
  GenericKubernetesResource route(String namespace, String name) {
    Seen<LLMRoute> s = routes.get(Kinds.key(namespace, name));
    return s == null ? null : s.raw();
  }

  /** Everything valid, with each model name given to its oldest route. */
  GatewayConfig config() {
    List<LLMRoute> accepted = new ArrayList<>();
    for (Seen<LLMRoute> s : routesByAge()) {
      accepted.add(s.value());
    }
    Map<String, LLMRoute> byModel = new HashMap<>();
    accepted.removeIf(r -> byModel.putIfAbsent(r.modelName(), r) != null);
    Map<Kinds.Key, InferenceObjective> allObjectives = new HashMap<>();
    objectives.forEach((k, s) -> {
      if (s.valid()) {
        allObjectives.put(k, s.value());
      }
    });
    llmdObjectives.forEach((k, s) -> {
      if (s.valid()) {
        allObjectives.putIfAbsent(k, s.value());
      }
    });
    List<ModelRewrite> rewritesByAge = rewrites.values().stream().filter(Seen::valid)
        .sorted(Comparator.comparing((Seen<ModelRewrite> s) -> s.creationTimestamp())
            .thenComparing(s -> s.value().namespace() + "/" + s.value().name()))
        .map(Seen::value).toList();
    List<TenantBudget> validBudgets = valid(budgets);
    budgetRoutes.check(validBudgets, routes.entrySet().stream().filter(e -> e.getValue().valid())
        .map(Map.Entry::getKey).collect(Collectors.toSet()));
    return new GatewayConfig(valid(pools), accepted, List.copyOf(allObjectives.values()),
        List.copyOf(pods.values()), validBudgets, rewritesByAge);
  }

  /** A verdict for every route seen, valid or not. */
  List<RouteVerdict> verdicts() {
    Map<String, Seen<LLMRoute>> modelOwner = new HashMap<>();
    for (Seen<LLMRoute> s : routesByAge()) {
      modelOwner.putIfAbsent(s.value().modelName(), s);
    }
    List<RouteVerdict> out = new ArrayList<>(routes.size());
    for (Seen<LLMRoute> s : routes.values()) {
      var meta = s.raw().getMetadata();
      if (!s.valid()) {
        out.add(new RouteVerdict(meta.getNamespace(), meta.getName(), s.generation(), REASON_INVALID,
            s.problem().fieldProblem(), List.of(), List.of(), List.of()));
        continue;
      }
      LLMRoute route = s.value();
      Seen<LLMRoute> owner = modelOwner.get(route.modelName());
      if (owner != s) {
        out.add(new RouteVerdict(meta.getNamespace(), meta.getName(), s.generation(), REASON_MODEL_CONFLICT,
            "model '" + route.modelName() + "' is already served by LLMRoute '" + owner.value().name() + "'",
            route.poolNames(), List.of(), servedModels(route)));
        continue;
      }
      List<String> unresolved = new ArrayList<>();
      for (String pool : route.poolNames()) {
        Seen<InferencePool> p = pools.get(Kinds.key(route.namespace(), pool));
        if (p == null || !p.valid()) {
          unresolved.add(pool);
        }
      }
      out.add(new RouteVerdict(meta.getNamespace(), meta.getName(), s.generation(), null, null, route.poolNames(),
          unresolved, servedModels(route)));
    }
    return out;
  }

  /**
   * Whether this EPP answers for the route's status: always, unless pools are selected by label, in which case only
   * for routes naming one of its pools (another EPP deployment owns the rest).
   */
  boolean ownsStatusOf(RouteVerdict v) {
    Seen<LLMRoute> s = routes.get(Kinds.key(v.namespace(), v.name()));
    if (!poolsSelectedByLabel || s == null || !s.valid()) {
      return true;
    }
    return s.value().poolNames().stream().anyMatch(p -> pools.containsKey(Kinds.key(v.namespace(), p)));
  }

  /**
   * What some ready pod must already serve: targets with a {@code source} are loaded on demand, so they need not be; a
   * model-less route is served by whichever variant fits, so it needs only a ready pod.
   */
  private static List<String> servedModels(LLMRoute route) {
    if (route.adapter().modelLess()) {
      return List.of();
    }
    return route.adapter().targets().isEmpty()
        ? List.of(route.modelName())
        : route.adapter().targets().stream().filter(t -> t.source() == null).map(t -> t.name()).toList();
  }

  private List<Seen<LLMRoute>> routesByAge() {
    return routes.values().stream().filter(Seen::valid)
        .sorted(Comparator.comparing((Seen<LLMRoute> s) -> s.creationTimestamp())
            .thenComparing(s -> s.value().namespace() + "/" + s.value().name()))
        .toList();
  }

  private static <T> List<T> valid(Map<Kinds.Key, Seen<T>> seen) {
    return seen.values().stream().filter(Seen::valid).map(Seen::value).toList();
  }

  private interface Parser<T> {
    T parse(JsonNode object) throws ConfigException;
  }

  private <T> Seen<T> parse(GenericKubernetesResource r, Parser<T> parser) {
    try {
      return new Seen<>(r, parser.parse(serialization.convertValue(r, JsonNode.class)), null);
    } catch (ConfigException e) {
      LOG.warn("ignoring invalid object: {}", e.getMessage());
      return new Seen<>(r, null, e);
    }
  }

  private static Kinds.Key key(GenericKubernetesResource r) {
    return Kinds.key(r.getMetadata().getNamespace(), r.getMetadata().getName());
  }

  /** A pod being deleted stops taking new requests at once, before its Ready condition changes. */
  static PodInfo podInfo(Pod pod) {
    var meta = pod.getMetadata();
    var status = pod.getStatus();
    boolean ready = false;
    String ip = null;
    String phase = null;
    String readySince = null;
    if (status != null) {
      ip = status.getPodIP();
      phase = status.getPhase();
      if (status.getConditions() != null) {
        for (PodCondition c : status.getConditions()) {
          if ("Ready".equals(c.getType())) {
            ready = "True".equals(c.getStatus());
            readySince = ready ? c.getLastTransitionTime() : null;
          }
        }
      }
    }
    boolean terminating = meta.getDeletionTimestamp() != null;
    Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
    Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
    return new PodInfo(meta.getNamespace(), meta.getName(), labels, ip, phase, ready && !terminating,
        PodInfo.activePortsOf(annotations), PodInfo.readyAfter(meta.getCreationTimestamp(), readySince));
  }
}
