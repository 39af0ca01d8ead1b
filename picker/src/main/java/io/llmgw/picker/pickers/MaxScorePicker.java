package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** The highest totals win, ties broken at random (GIE's max-score-picker); {@code maxEndpoints} is primary + fallbacks. */
public final class MaxScorePicker implements Picker {
  public static final String TYPE = "max-score-picker";

  private final int maxEndpoints;
  private final Supplier<RandomGenerator> random;

  public MaxScorePicker(int maxEndpoints, Supplier<RandomGenerator> random) {
    if (maxEndpoints < 1) {
      throw new IllegalArgumentException("maxNumOfEndpoints must be at least 1");
    }
    this.maxEndpoints = maxEndpoints;
    this.random = random;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<EndpointState> pick(PickRequest request, List<EndpointState> candidates, double[] scores) {
    return TopK.select(candidates, scores, maxEndpoints, random.get());
  }
}
