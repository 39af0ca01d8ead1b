package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** Any candidate, uniformly, whatever the scores (GIE's random-picker; the {@code random} baseline). */
public final class RandomPicker implements Picker {
  public static final String TYPE = "random-picker";

  /** Every candidate scores the same, so the top-k draw is uniform. */
  private final MaxScorePicker draw;

  public RandomPicker(int maxEndpoints, Supplier<RandomGenerator> random) {
    this.draw = new MaxScorePicker(maxEndpoints, random);
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<EndpointState> pick(PickRequest request, List<EndpointState> candidates, double[] scores) {
    return draw.pick(request, candidates, new double[candidates.size()]);
  }
}
