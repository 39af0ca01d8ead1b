package io.llmgw.picker;

import java.util.List;
import java.util.Set;

/** Ranks candidates best first. Policies are composed from filters and scorers, not copied. */
public interface Policy {
  List<EndpointState> rank(PickRequest request, List<EndpointState> candidates, int limit);

  default void onPicked(PickRequest request, EndpointState primary) {}

  default void retainOnly(Set<String> addresses) {}
}
