package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The status conditions an LLMRoute should carry: {@code Accepted} (valid, owns its model name), {@code ResolvedRefs}
 * (its pools exist) and {@code Ready} (some endpoint of its pools can serve now). Pure, so every case is unit-tested.
 */
final class RouteConditions {
  static final String ACCEPTED = "Accepted";
  static final String RESOLVED_REFS = "ResolvedRefs";
  static final String READY = "Ready";

  private RouteConditions() {}

  /**
   * Endpoints of the route's pools: all of them, those answering their metrics scrape, whether any of those has
   * reported its model list yet, and which of the route's models no answering endpoint serves.
   */
  record Endpoints(int total, int healthy, boolean modelsKnown, List<String> unserved) {
    Endpoints {
      unserved = List.copyOf(unserved);
    }
  }

  static List<Condition> desired(RouteVerdict v, Endpoints endpoints) {
    List<Condition> out = new ArrayList<>(3);
    long gen = v.generation();
    if (!v.accepted()) {
      out.add(condition(ACCEPTED, "False", v.rejectReason(), v.problem(), gen));
      out.add(condition(RESOLVED_REFS, "Unknown", "NotAccepted", "the route is not accepted", gen));
      out.add(condition(READY, "False", "NotAccepted", "the route is not accepted", gen));
      return out;
    }
    out.add(condition(ACCEPTED, "True", ACCEPTED, "the route is valid and owns its model name", gen));
    if (v.unresolved().isEmpty()) {
      out.add(condition(RESOLVED_REFS, "True", RESOLVED_REFS, "every backendRef names an InferencePool", gen));
    } else {
      out.add(condition(RESOLVED_REFS, "False", "PoolNotFound",
          "no valid InferencePool " + String.join(", ", v.unresolved()) + " in namespace " + v.namespace(), gen));
    }
    out.add(ready(endpoints, gen));
    return out;
  }

  /** No counts in the messages: they would rewrite every route's status on every pod start and stop. */
  private static Condition ready(Endpoints e, long gen) {
    if (e.total() == 0) {
      return condition(READY, "False", "NoReadyEndpoints", "its pools select no ready pod", gen);
    }
    if (e.healthy() == 0) {
      return condition(READY, "False", "NoReadyEndpoints", "no endpoint of its pools answers its metrics scrape", gen);
    }
    if (!e.modelsKnown()) {
      return condition(READY, "Unknown", "ModelsUnknown", "waiting for the pods to list their models", gen);
    }
    if (!e.unserved().isEmpty()) {
      return condition(READY, "False", "ModelNotServed",
          "no ready pod of its pools serves " + String.join(", ", e.unserved()), gen);
    }
    return condition(READY, "True", "EndpointsReady", "a ready pod serves each of its models", gen);
  }

  /**
   * The conditions to write, or null when {@code current} already says the same: unchanged conditions keep their
   * transition time, so a re-check writes nothing.
   */
  static List<Condition> merge(List<Condition> desired, List<Condition> current, Instant now) {
    List<Condition> out = new ArrayList<>(desired.size());
    boolean changed = current == null || current.size() != desired.size();
    String stamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
    for (Condition d : desired) {
      Condition c = find(current, d.getType());
      if (c != null && same(c, d)) {
        out.add(c);
        continue;
      }
      changed = true;
      boolean sameStatus = c != null && Objects.equals(c.getStatus(), d.getStatus())
          && c.getLastTransitionTime() != null;
      out.add(new ConditionBuilder(d).withLastTransitionTime(sameStatus ? c.getLastTransitionTime() : stamp).build());
    }
    return changed ? out : null;
  }

  private static Condition find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    for (Condition c : conditions) {
      if (type.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  private static boolean same(Condition a, Condition b) {
    return Objects.equals(a.getStatus(), b.getStatus()) && Objects.equals(a.getReason(), b.getReason())
        && Objects.equals(a.getMessage(), b.getMessage())
        && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration());
  }

  private static Condition condition(String type, String status, String reason, String message, long generation) {
    return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
        .withObservedGeneration(generation).build();
  }
}
