package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.api.crd.CrdNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** llm-d-router's own kinds under {@code llm-d.ai}, read field by field with the checks llm-d's CRDs make. */
final class LlmdDocuments {
  /** The versions of llm-d.ai this reader accepts: what llm-d's CRDs serve, and the version its docs first named. */
  static final Set<String> APIS = Set.of(CrdNames.LLMD_GROUP + "/" + CrdNames.LLMD_VERSION,
      CrdNames.LLMD_GROUP + "/v1alpha1");

  private LlmdDocuments() {}

  static ModelRewrite modelRewrite(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = Documents.namespace(r, meta);
    JsonNode spec = r.object(doc, "spec", "spec");
    r.onlyFields(spec, "spec", Set.of("poolRef", "rules"));
    JsonNode poolRef = r.object(spec, "poolRef", "spec.poolRef");
    r.onlyFields(poolRef, "spec.poolRef", Set.of("group", "kind", "name"));
    String pool = r.name(poolRef, "name", "spec.poolRef.name");
    List<JsonNode> ruleNodes = r.list(spec, "rules", "spec.rules", true);
    if (ruleNodes.isEmpty()) {
      throw r.error("spec.rules", "needs at least one rule");
    }
    List<ModelRewrite.Rule> rules = new ArrayList<>();
    for (int i = 0; i < ruleNodes.size(); i++) {
      rules.add(rule(r, ruleNodes.get(i), "spec.rules[" + i + "]"));
    }
    return new ModelRewrite(ns, name, pool, rules);
  }

  private static ModelRewrite.Rule rule(NodeReader r, JsonNode rule, String path) throws ConfigException {
    r.onlyFields(rule, path, Set.of("matches", "targets"));
    List<String> models = new ArrayList<>();
    List<JsonNode> matches = r.list(rule, "matches", path + ".matches", false);
    for (int i = 0; i < matches.size(); i++) {
      String at = path + ".matches[" + i + "]";
      r.onlyFields(matches.get(i), at, Set.of("model"));
      JsonNode model = r.object(matches.get(i), "model", at + ".model");
      r.onlyFields(model, at + ".model", Set.of("type", "value"));
      String type = r.optionalString(model, "type", at + ".model.type");
      if (type != null && !type.equals("Exact")) {
        throw r.error(at + ".model.type", "'" + type + "' is not supported; llm-d matches model names Exact only");
      }
      String value = r.string(model, "value", at + ".model.value");
      if (models.contains(value)) {
        throw r.error(at + ".model.value", "model '" + value + "' is matched twice in this rule");
      }
      models.add(value);
    }
    List<JsonNode> targetNodes = r.list(rule, "targets", path + ".targets", true);
    if (targetNodes.isEmpty()) {
      throw r.error(path + ".targets", "needs at least one target");
    }
    List<AdapterTarget> targets = new ArrayList<>();
    int weighted = 0;
    for (int i = 0; i < targetNodes.size(); i++) {
      String at = path + ".targets[" + i + "]";
      JsonNode t = targetNodes.get(i);
      r.onlyFields(t, at, Set.of("weight", "modelRewrite"));
      String model = r.string(t, "modelRewrite", at + ".modelRewrite");
      weighted += t.has("weight") ? 1 : 0;
      int weight = r.integer(t, "weight", at + ".weight", 1, Documents.MAX_WEIGHT, 1);
      for (AdapterTarget prior : targets) {
        if (prior.name().equals(model)) {
          throw r.error(at + ".modelRewrite", "target '" + model + "' is listed twice");
        }
      }
      targets.add(new AdapterTarget(model, weight, null));
    }
    if (weighted != 0 && weighted != targets.size()) {
      throw r.error(path + ".targets", "a weight set on one target must be set on every target (llm-d's rule)");
    }
    return new ModelRewrite.Rule(models, targets);
  }
}
