package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Candidates drawn with probability proportional to their totals (llm-d's weighted-random-picker), without
 * replacement for the fallbacks: a pod scoring twice another's gets about twice its share, so near-equal pods share
 * the load instead of one taking it all between two reports. Candidates scoring zero (or less) come last, and when
 * every candidate does, the draw is uniform.
 */
public final class WeightedRandomPicker implements Picker {
  public static final String TYPE = "weighted-random-picker";

  private final Supplier<RandomGenerator> random;
  /** Ranks the draw's keys: the top k keys are the weighted draw, in order. */
  private final MaxScorePicker topKeys;

  public WeightedRandomPicker(int maxEndpoints, Supplier<RandomGenerator> random) {
    this.random = random;
    this.topKeys = new MaxScorePicker(maxEndpoints, random);
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<EndpointState> pick(PickRequest request, List<EndpointState> candidates, double[] scores) {
    int n = candidates.size();
    // each candidate's key is log(u)/w, the log of u^(1/w) (Efraimidis–Spirakis): the largest k keys are a weighted
    // draw of k without replacement
    double[] keys = new double[n];
    RandomGenerator r = random.get();
    for (int i = 0; i < n; i++) {
      double w = scores[i];
      // zero-score candidates tie at the bottom, where the top-k selection breaks ties at random
      keys[i] = w > 0 && Double.isFinite(w) ? Math.log(r.nextDouble()) / w : Double.NEGATIVE_INFINITY;
    }
    return topKeys.pick(request, candidates, keys);
  }
}
