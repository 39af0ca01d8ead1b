package io.llmgw.picker;

import java.util.List;

/** Keeps or drops one endpoint for one request, before scoring. */
public interface Filter extends Plugin {
  /** Whether it can drop anything for this request; when not, the profile does not ask it endpoint by endpoint. */
  default boolean applies(PickRequest request) {
    return true;
  }

  boolean keep(PickRequest request, EndpointState endpoint);

  /**
   * When the filter drops every candidate: why, as the request's answer; or null when the filter is only a
   * preference, and picking then goes on among the candidates it was given.
   */
  PickOutcome.NoEndpoint whyNone(PickRequest request, List<EndpointState> candidates);

  /** When a preference ({@link #whyNone} null) drops every candidate: those picking goes on among (default: all). */
  default List<EndpointState> bestEffort(PickRequest request, List<EndpointState> candidates) {
    return candidates;
  }
}
