package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/**
 * The seed policy's fallback: fewest active adapters, then least total pending — a lexicographic order expressed as one
 * min–max normalised key so it composes like any other scorer.
 */
public final class FewestAdaptersScorer implements Scorer {
  private static final long PENDING_SPAN = 1L << 32;

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long[] keys = new long[candidates.size()];
    for (int i = 0; i < keys.length; i++) {
      EndpointState e = candidates.get(i);
      keys[i] = e.metrics().activeAdapterCount() * PENDING_SPAN + e.inFlight().total();
      min = Math.min(min, keys[i]);
      max = Math.max(max, keys[i]);
    }
    for (int i = 0; i < keys.length; i++) {
      out[i] = max == min ? 1.0 : (double) (max - keys[i]) / (max - min);
    }
  }
}
