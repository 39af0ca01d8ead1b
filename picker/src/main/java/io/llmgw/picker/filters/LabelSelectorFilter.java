package io.llmgw.picker.filters;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Filter;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * llm-d's {@code label-selector-filter}: keeps the pods whose labels a Kubernetes label selector matches, every
 * {@code matchLabels} entry and every {@code matchExpressions} requirement (In, NotIn, Exists, DoesNotExist) alike.
 */
public final class LabelSelectorFilter implements Filter {
  public static final String TYPE = "label-selector-filter";

  /** One requirement of a selector's {@code matchExpressions}. */
  public record Requirement(String key, Operator operator, Set<String> values) {
    public Requirement {
      values = Set.copyOf(values);
    }

    boolean matches(Map<String, String> labels) {
      String v = labels.get(key);
      return switch (operator) {
        case IN -> v != null && values.contains(v);
        case NOT_IN -> v == null || !values.contains(v);
        case EXISTS -> v != null;
        case DOES_NOT_EXIST -> v == null;
      };
    }
  }

  /** Kubernetes' selector operators, by their names there. */
  public enum Operator {
    IN("In"), NOT_IN("NotIn"), EXISTS("Exists"), DOES_NOT_EXIST("DoesNotExist");

    private final String wire;

    Operator(String wire) {
      this.wire = wire;
    }

    public static Operator of(String name) {
      for (Operator o : values()) {
        if (o.wire.equals(name)) {
          return o;
        }
      }
      return null;
    }

    public boolean takesValues() {
      return this == IN || this == NOT_IN;
    }
  }

  private final Map<String, String> matchLabels;
  private final List<Requirement> matchExpressions;

  public LabelSelectorFilter(Map<String, String> matchLabels, List<Requirement> matchExpressions) {
    this.matchLabels = Map.copyOf(matchLabels);
    this.matchExpressions = List.copyOf(matchExpressions);
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public boolean keep(PickRequest request, EndpointState e) {
    Map<String, String> labels = e.endpoint().labels();
    for (var m : matchLabels.entrySet()) {
      if (!m.getValue().equals(labels.get(m.getKey()))) {
        return false;
      }
    }
    for (Requirement r : matchExpressions) {
      if (!r.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates) {
    return new PickOutcome.NoEndpoint(PickOutcome.NoEndpoint.NO_READY_ENDPOINT, "no ready pod's labels match "
        + (matchLabels.isEmpty() ? "" : matchLabels) + (matchLabels.isEmpty() || matchExpressions.isEmpty() ? ""
            : " and ")
        + (matchExpressions.isEmpty() ? "" : matchExpressions));
  }
}
