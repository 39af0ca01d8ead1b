package io.llmgw.picker.config;

import io.llmgw.picker.filters.LabelSelectorFilter;
import io.llmgw.picker.filters.LabelSelectorFilter.Operator;
import io.llmgw.picker.filters.LabelSelectorFilter.Requirement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads a {@code label-selector-filter}'s Kubernetes label selector, with Kubernetes' rules for its shape. */
final class LabelSelectors {
  private LabelSelectors() {}

  static LabelSelectorFilter filter(Parameters p) {
    p.allowOnly("matchLabels", "matchExpressions");
    Map<String, String> labels = new LinkedHashMap<>();
    Object ml = p.raw("matchLabels");
    if (ml != null) {
      if (!(ml instanceof Map<?, ?> m)) {
        throw p.refuse("matchLabels", "must be a mapping of label to value");
      }
      for (var e : m.entrySet()) {
        if (!(e.getValue() instanceof String || e.getValue() instanceof Number || e.getValue() instanceof Boolean)) {
          throw p.refuse("matchLabels", "." + e.getKey() + " must be a plain value");
        }
        labels.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
      }
    }
    List<Requirement> requirements = new ArrayList<>();
    Object me = p.raw("matchExpressions");
    if (me != null) {
      if (!(me instanceof List<?> list)) {
        throw p.refuse("matchExpressions", "must be a list of {key, operator, values}");
      }
      for (int i = 0; i < list.size(); i++) {
        requirements.add(requirement(p, list.get(i), "matchExpressions[" + i + "]"));
      }
    }
    if (labels.isEmpty() && requirements.isEmpty()) {
      throw p.refuse("matchLabels", "or matchExpressions is required (an empty selector would keep every pod)");
    }
    return new LabelSelectorFilter(labels, requirements);
  }

  private static Requirement requirement(Parameters p, Object node, String path) {
    if (!(node instanceof Map<?, ?> m)) {
      throw p.refuse(path, "must be a mapping {key, operator, values}");
    }
    for (Object k : m.keySet()) {
      if (!Set.of("key", "operator", "values").contains(String.valueOf(k))) {
        throw p.refuse(path + "." + k, "is not a field of a selector requirement (key, operator, values)");
      }
    }
    if (!(m.get("key") instanceof String key) || key.isBlank()) {
      throw p.refuse(path + ".key", "is required");
    }
    Operator op = Operator.of(String.valueOf(m.get("operator")));
    if (op == null) {
      throw p.refuse(path + ".operator", "is '" + m.get("operator") + "', expected In, NotIn, Exists or DoesNotExist");
    }
    Set<String> values = new LinkedHashSet<>();
    Object v = m.get("values");
    if (v != null) {
      if (!(v instanceof List<?> list)) {
        throw p.refuse(path + ".values", "must be a list");
      }
      list.forEach(x -> values.add(String.valueOf(x)));
    }
    if (op.takesValues() == values.isEmpty()) {
      throw p.refuse(path + ".values", op.takesValues() ? "must name at least one value for " + m.get("operator")
          : "must be empty for " + m.get("operator"));
    }
    return new Requirement(key, op, values);
  }
}
