package io.llmgw.extproc.routing;

import io.llmgw.api.AdapterTarget;
import io.llmgw.api.LLMRoute;
import java.util.List;
import java.util.random.RandomGenerator;

/** Splits a route's traffic across its targets by weight; a route without targets serves its own name. */
final class TargetChooser {
  private TargetChooser() {}

  /** Where the target's weights live, when the route says so: such a target is loaded on demand. */
  static String source(LLMRoute route, String target) {
    for (AdapterTarget t : route.adapter().targets()) {
      if (t.name().equals(target)) {
        return t.source();
      }
    }
    return null;
  }

  static String choose(LLMRoute route, RandomGenerator random) {
    List<AdapterTarget> targets = route.adapter().targets();
    if (targets.isEmpty()) {
      return route.modelName();
    }
    if (targets.size() == 1) {
      return targets.getFirst().name();
    }
    long total = 0;
    for (AdapterTarget t : targets) {
      total += t.weight();
    }
    long draw = random.nextLong(total);
    for (AdapterTarget t : targets) {
      draw -= t.weight();
      if (draw < 0) {
        return t.name();
      }
    }
    return targets.getLast().name();
  }
}
