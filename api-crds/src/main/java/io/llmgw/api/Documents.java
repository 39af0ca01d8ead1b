package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Turns one document of each kind into its record, field by field. */
final class Documents {
  static final int MAX_WEIGHT = 1_000_000;
  static final int MAX_PRIORITY = 1_000_000;

  private Documents() {}

  static InferencePool pool(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = namespace(r, meta);
    JsonNode spec = r.object(doc, "spec", "spec");
    r.onlyFields(spec, "spec", Set.of("selector", "targetPorts", "appProtocol", "endpointPickerRef", "extensionRef"));
    JsonNode selector = r.object(spec, "selector", "spec.selector");
    Map<String, String> labels = r.stringMap(selector, "matchLabels", "spec.selector.matchLabels");
    if (labels.isEmpty()) {
      throw r.error("spec.selector.matchLabels", "needs at least one label");
    }
    List<Integer> ports = new ArrayList<>();
    List<JsonNode> portNodes = r.list(spec, "targetPorts", "spec.targetPorts", true);
    if (portNodes.isEmpty()) {
      throw r.error("spec.targetPorts", "needs at least one port");
    }
    for (int i = 0; i < portNodes.size(); i++) {
      int port = r.integer(portNodes.get(i), "number", "spec.targetPorts[" + i + "].number", 1, 65535, -1);
      if (port < 0) {
        throw r.error("spec.targetPorts[" + i + "].number", "is required");
      }
      if (ports.contains(port)) {
        throw r.error("spec.targetPorts[" + i + "].number", "port " + port + " is listed twice");
      }
      ports.add(port);
    }
    return new InferencePool(ns, name, labels, ports, resolvedByServer(r, meta), PoolAnnotations.capacity(r, meta));
  }

  private static boolean resolvedByServer(NodeReader r, JsonNode meta) throws ConfigException {
    JsonNode value = meta.path("annotations").path(InferencePool.ADAPTERS_RESOLVED_BY_SERVER);
    if (value.isMissingNode() || value.isNull()) {
      return false;
    }
    return switch (value.asText()) {
      case "true" -> true;
      case "false" -> false;
      default -> throw r.error("metadata.annotations[" + InferencePool.ADAPTERS_RESOLVED_BY_SERVER + "]",
          "must be \"true\" or \"false\", got " + ClientText.quote(value.asText()));
    };
  }

  static LLMRoute route(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = namespace(r, meta);
    JsonNode spec = r.object(doc, "spec", "spec");
    r.onlyFields(spec, "spec", Set.of("parentRefs", "backendRefs", "adapter"));
    List<String> pools = new ArrayList<>();
    List<JsonNode> refs = r.list(spec, "backendRefs", "spec.backendRefs", true);
    if (refs.isEmpty()) {
      throw r.error("spec.backendRefs", "needs at least one pool");
    }
    for (int i = 0; i < refs.size(); i++) {
      pools.add(r.name(refs.get(i), "name", "spec.backendRefs[" + i + "].name"));
    }
    JsonNode adapter = r.object(spec, "adapter", "spec.adapter");
    r.onlyFields(adapter, "spec.adapter",
        Set.of("name", "priority", "objectives", "targets", "objectiveFallback", "variants", "requirements"));
    String model = r.string(adapter, "name", "spec.adapter.name");
    int priority = r.integer(adapter, "priority", "spec.adapter.priority", -MAX_PRIORITY, MAX_PRIORITY, 0);
    List<Objective> objectives = new ArrayList<>();
    List<JsonNode> objNodes = r.list(adapter, "objectives", "spec.adapter.objectives", false);
    for (int i = 0; i < objNodes.size(); i++) {
      objectives.add(objective(r, objNodes.get(i), "spec.adapter.objectives[" + i + "]"));
    }
    List<AdapterTarget> targets = new ArrayList<>();
    List<JsonNode> targetNodes = r.list(adapter, "targets", "spec.adapter.targets", false);
    for (int i = 0; i < targetNodes.size(); i++) {
      String path = "spec.adapter.targets[" + i + "]";
      JsonNode t = targetNodes.get(i);
      r.onlyFields(t, path, Set.of("name", "weight", "source"));
      String tName = r.string(t, "name", path + ".name");
      int weight = r.integer(t, "weight", path + ".weight", 1, MAX_WEIGHT, 1);
      String source = r.optionalString(t, "source", path + ".source");
      for (AdapterTarget prior : targets) {
        if (prior.name().equals(tName)) {
          throw r.error(path + ".name", "target '" + tName + "' is listed twice");
        }
      }
      targets.add(new AdapterTarget(tName, weight, source));
    }
    ObjectiveFallback fallback = objectiveFallback(r, adapter, priority);
    List<Variant> variants = variants(r, adapter, pools);
    if (!variants.isEmpty() && !targets.isEmpty()) {
      throw r.error("spec.adapter.variants", "a route lists either targets or variants, not both");
    }
    Requirements requirements = requirements(r, adapter);
    if (variants.isEmpty() && adapter.has("requirements")) {
      throw r.error("spec.adapter.requirements", "only a route with variants has requirements");
    }
    return new LLMRoute(ns, name, pools,
        new RouteAdapter(model, priority, objectives, targets, fallback, variants, requirements));
  }

  private static ObjectiveFallback objectiveFallback(NodeReader r, JsonNode adapter, int priority)
      throws ConfigException {
    String value = r.optionalString(adapter, "objectiveFallback", "spec.adapter.objectiveFallback");
    if (value == null || value.equals("Queue")) {
      return ObjectiveFallback.QUEUE;
    }
    if (!value.equals("Shed")) {
      throw r.error("spec.adapter.objectiveFallback", "'" + value + "' is not Queue or Shed");
    }
    if (priority >= 0) {
      throw r.error("spec.adapter.objectiveFallback", "only a sheddable route (priority below 0) may shed");
    }
    return ObjectiveFallback.SHED;
  }

  private static List<Variant> variants(NodeReader r, JsonNode adapter, List<String> pools) throws ConfigException {
    List<Variant> out = new ArrayList<>();
    List<JsonNode> nodes = r.list(adapter, "variants", "spec.adapter.variants", false);
    for (int i = 0; i < nodes.size(); i++) {
      String path = "spec.adapter.variants[" + i + "]";
      JsonNode v = nodes.get(i);
      r.onlyFields(v, path, Set.of("name", "pool", "accuracy", "costPer1kTokens", "source"));
      String vName = r.string(v, "name", path + ".name");
      String pool = r.name(v, "pool", path + ".pool");
      if (!pools.contains(pool)) {
        throw r.error(path + ".pool", "'" + pool + "' is not one of the route's backendRefs " + pools);
      }
      double accuracy = r.number(v, "accuracy", path + ".accuracy", 0, 1, Double.NaN);
      double cost = r.number(v, "costPer1kTokens", path + ".costPer1kTokens", 0, 1e9, Double.NaN);
      if (Double.isNaN(accuracy) || Double.isNaN(cost)) {
        throw r.error(path + (Double.isNaN(accuracy) ? ".accuracy" : ".costPer1kTokens"), "is required");
      }
      for (Variant prior : out) {
        if (prior.name().equals(vName) && prior.pool().equals(pool)) {
          throw r.error(path + ".name", "variant '" + vName + "' in pool '" + pool + "' is listed twice");
        }
      }
      out.add(new Variant(vName, pool, accuracy, cost, r.optionalString(v, "source", path + ".source")));
    }
    return out;
  }

  private static Requirements requirements(NodeReader r, JsonNode adapter) throws ConfigException {
    JsonNode q = r.optionalObject(adapter, "requirements", "spec.adapter.requirements");
    if (q == null) {
      return Requirements.NONE;
    }
    String path = "spec.adapter.requirements";
    r.onlyFields(q, path, Set.of("maxLatency", "minAccuracy", "maxCostPer1kTokens"));
    String latency = r.optionalString(q, "maxLatency", path + ".maxLatency");
    Duration d = latency == null ? null : Durations.parse(latency);
    if (latency != null && (d == null || d.isZero())) {
      throw r.error(path + ".maxLatency", "'" + latency + "' is not a positive duration such as 2s or 500ms");
    }
    return new Requirements(d, r.number(q, "minAccuracy", path + ".minAccuracy", 0, 1, 0),
        r.number(q, "maxCostPer1kTokens", path + ".maxCostPer1kTokens", 0, 1e9, Double.POSITIVE_INFINITY));
  }

  static InferenceObjective inferenceObjective(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = namespace(r, meta);
    JsonNode spec = r.object(doc, "spec", "spec");
    if (spec.has("targetModels")) {
      // llm-d's older samples still carry it; its API server prunes it, so it never did anything there either
      throw r.error("spec.targetModels", "is not a field of InferenceObjective (an API server drops it); split "
          + "traffic between models with an InferenceModelRewrite or an LLMRoute's targets");
    }
    r.onlyFields(spec, "spec", Set.of("priority", "poolRef"));
    int priority = r.integer(spec, "priority", "spec.priority", -MAX_PRIORITY, MAX_PRIORITY, 0);
    JsonNode poolRef = r.object(spec, "poolRef", "spec.poolRef");
    return new InferenceObjective(ns, name, priority, r.name(poolRef, "name", "spec.poolRef.name"));
  }

  private static Objective objective(NodeReader r, JsonNode o, String path) throws ConfigException {
    r.onlyFields(o, path, Set.of("type", "latency"));
    String type = r.string(o, "type", path + ".type");
    if (!type.equals("OutputTokenLatency") && !type.equals("TimeToFirstToken")) {
      throw r.error(path + ".type", "'" + type + "' is not OutputTokenLatency or TimeToFirstToken");
    }
    JsonNode latency = r.object(o, "latency", path + ".latency");
    r.onlyFields(latency, path + ".latency", Set.of("value", "quantile"));
    String value = r.string(latency, "value", path + ".latency.value");
    Duration d = Durations.parse(value);
    if (d == null || d.isZero()) {
      throw r.error(path + ".latency.value", "'" + value + "' is not a positive duration such as 2s or 500ms");
    }
    JsonNode q = r.optionalObject(latency, "quantile", path + ".latency.quantile");
    int numerator = q == null ? 99 : r.integer(q, "numerator", path + ".latency.quantile.numerator", 1, 100, 99);
    return new Objective(type, d, numerator);
  }

  static PodInfo pod(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = namespace(r, meta);
    Map<String, String> labels = r.stringMap(meta, "labels", "metadata.labels");
    JsonNode status = r.object(doc, "status", "status");
    String ip = r.string(status, "podIP", "status.podIP");
    if (!isIpLiteral(ip)) {
      throw r.error("status.podIP", "'" + ip + "' is not an IP address");
    }
    String phase = r.optionalString(status, "phase", "status.phase");
    boolean ready = false;
    String readySince = null;
    List<JsonNode> conditions = r.list(status, "conditions", "status.conditions", false);
    for (int i = 0; i < conditions.size(); i++) {
      String path = "status.conditions[" + i + "]";
      if ("Ready".equals(r.string(conditions.get(i), "type", path + ".type"))) {
        JsonNode s = conditions.get(i).get("status");
        String v = s == null ? null : s.asText();
        if (!"True".equals(v) && !"False".equals(v) && !"Unknown".equals(v)) {
          throw r.error(path + ".status", "must be True, False or Unknown");
        }
        ready = "True".equals(v);
        readySince = ready ? timestamp(r, conditions.get(i), "lastTransitionTime", path + ".lastTransitionTime") : null;
      }
    }
    Map<String, String> annotations = r.stringMap(meta, "annotations", "metadata.annotations");
    return new PodInfo(ns, name, labels, ip, phase == null ? "Running" : phase, ready,
        PodInfo.activePortsOf(annotations),
        PodInfo.readyAfter(timestamp(r, meta, "creationTimestamp", "metadata.creationTimestamp"), readySince));
  }

  /** An RFC 3339 time as Kubernetes writes it ({@code 2026-11-29T01:02:03Z}), or null when absent. */
  private static String timestamp(NodeReader r, JsonNode parent, String field, String path) throws ConfigException {
    String t = r.optionalString(parent, field, path);
    if (t != null) {
      try {
        Instant.parse(t);
      } catch (DateTimeParseException e) {
        throw r.error(path, ClientText.quote(t) + " is not an RFC 3339 time such as 2026-11-29T01:02:03Z");
      }
    }
    return t;
  }

  /** {@code metadata.namespace}, "default" when absent (as kubectl applies a file without one). */
  static String namespace(NodeReader r, JsonNode meta) throws ConfigException {
    return meta.hasNonNull("namespace") ? r.name(meta, "namespace", "metadata.namespace") : "default";
  }

  static boolean isIpLiteral(String s) {
    if (s.indexOf(':') >= 0) {
      return s.matches("[0-9a-fA-F:.]+");
    }
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
          || Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return true;
  }
}
