package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** Any candidate, uniformly, whatever the scores (GIE's random-picker; the {@code random} baseline). */
public final class RandomPicker implements Picker {
  public static final String TYPE = "random-picker";

  private final int maxEndpoints;
  private final Supplier<RandomGenerator> random;

  public RandomPicker(int maxEndpoints, Supplier<RandomGenerator> random) {
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
    return TopK.select(candidates, new double[candidates.size()], maxEndpoints, random.get());
  }
}
