package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/** More free KV cache is better: 1 − usage (GIE kv-cache-utilization-scorer). */
public final class KvCacheScorer implements Scorer {
  public static final String TYPE = "kv-cache-utilization-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    for (int i = 0; i < candidates.size(); i++) {
      double kv = candidates.get(i).metrics().kvCacheUsage();
      out[i] = 1.0 - Math.max(0.0, Math.min(1.0, kv));
    }
  }
}
