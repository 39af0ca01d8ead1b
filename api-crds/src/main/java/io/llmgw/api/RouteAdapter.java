package io.llmgw.api;

import java.util.List;

/**
 * {@code spec.adapter} of an LLMRoute. {@code name} is what clients send; {@code targets}, when present, split traffic
 * between concrete adapter versions by weight (an empty list means the name itself is the served model).
 */
public record RouteAdapter(String name, int priority, List<Objective> objectives, List<AdapterTarget> targets) {
  public RouteAdapter {
    objectives = List.copyOf(objectives);
    targets = List.copyOf(targets);
  }

  /** Priority below zero marks a use case whose requests may be shed when the pool is saturated. */
  public boolean sheddable() {
    return priority < 0;
  }
}
