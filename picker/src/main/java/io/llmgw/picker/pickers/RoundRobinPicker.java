package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a plain Kubernetes Service (kube-proxy) gives: the next endpoint in turn, blind to scores, load and adapters.
 * A baseline for benchmarks, not a policy to run.
 */
public final class RoundRobinPicker implements Picker {
  public static final String TYPE = "round-robin-picker";
  private static final Comparator<EndpointState> BY_ADDRESS = Comparator.comparing(EndpointState::address);

  private final int maxEndpoints;
  private final AtomicLong turn = new AtomicLong();

  public RoundRobinPicker(int maxEndpoints) {
    if (maxEndpoints < 1) {
      throw new IllegalArgumentException("maxNumOfEndpoints must be at least 1");
    }
    this.maxEndpoints = maxEndpoints;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<EndpointState> pick(PickRequest request, List<EndpointState> candidates, double[] scores) {
    List<EndpointState> ordered = new ArrayList<>(candidates);
    ordered.sort(BY_ADDRESS);
    int n = ordered.size();
    int start = (int) Math.floorMod(turn.getAndIncrement(), (long) n);
    int k = Math.min(maxEndpoints, n);
    List<EndpointState> out = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      out.add(ordered.get((start + i) % n));
    }
    return out;
  }
}
