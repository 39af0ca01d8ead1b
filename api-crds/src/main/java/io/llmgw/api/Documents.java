package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
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
    return new InferencePool(ns, name, labels, ports);
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
    r.onlyFields(adapter, "spec.adapter", Set.of("name", "priority", "objectives", "targets"));
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
    return new LLMRoute(ns, name, pools, new RouteAdapter(model, priority, objectives, targets));
  }

  static InferenceObjective inferenceObjective(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = namespace(r, meta);
    JsonNode spec = r.object(doc, "spec", "spec");
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
      }
    }
    return new PodInfo(ns, name, labels, ip, phase == null ? "Running" : phase, ready);
  }

  private static String namespace(NodeReader r, JsonNode meta) throws ConfigException {
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
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return true;
  }
}
