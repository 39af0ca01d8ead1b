package io.llmgw.api;

import java.util.List;

/**
 * {@code spec.adapter} of an LLMRoute. {@code name} is what clients send; {@code targets}, when present, split traffic
 * between concrete adapter versions by weight (an empty list means the name itself is the served model);
 * {@code variants}, instead of targets, make the route model-less: the EPP picks the cheapest variant that meets the
 * request's {@code requirements} (INFaaS).
 */
public record RouteAdapter(String name, int priority, List<Objective> objectives, List<AdapterTarget> targets,
    ObjectiveFallback objectiveFallback, List<Variant> variants, Requirements requirements) {
  public RouteAdapter {
    objectives = List.copyOf(objectives);
    targets = List.copyOf(targets);
    variants = List.copyOf(variants);
  }

  /** A route without variants that queues when its objective cannot be met. */
  public RouteAdapter(String name, int priority, List<Objective> objectives, List<AdapterTarget> targets) {
    this(name, priority, objectives, targets, ObjectiveFallback.QUEUE, List.of(), Requirements.NONE);
  }

  /** Priority below zero marks a use case whose requests may be shed when the pool is saturated. */
  public boolean sheddable() {
    return priority < 0;
  }

  public boolean modelLess() {
    return !variants.isEmpty();
  }

  /** The route's objective of this type ({@code TimeToFirstToken}, {@code OutputTokenLatency}), or null. */
  public Objective objective(String type) {
    for (Objective o : objectives) {
      if (o.type().equals(type)) {
        return o;
      }
    }
    return null;
  }
}
