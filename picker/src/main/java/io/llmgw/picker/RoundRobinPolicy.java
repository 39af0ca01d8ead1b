package io.llmgw.picker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a plain Kubernetes Service (kube-proxy) gives: the next endpoint in turn, blind to load and adapters. A
 * baseline for benchmarks, not a policy to run.
 */
public final class RoundRobinPolicy implements Policy {
  private static final Comparator<EndpointState> BY_ADDRESS = Comparator.comparing(EndpointState::address);
  private final AtomicLong turn = new AtomicLong();

  @Override
  public List<EndpointState> rank(PickRequest request, List<EndpointState> candidates, int limit) {
    List<EndpointState> ordered = new ArrayList<>(candidates);
    ordered.sort(BY_ADDRESS);
    int n = ordered.size();
    int start = (int) Math.floorMod(turn.getAndIncrement(), (long) n);
    List<EndpointState> out = new ArrayList<>(Math.min(limit, n));
    for (int i = 0; i < Math.min(limit, n); i++) {
      out.add(ordered.get((start + i) % n));
    }
    return out;
  }
}
