package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;

/** More free KV cache is better: 1 − usage (GIE kv-cache-utilization-scorer). */
public final class KvCacheScorer implements EndpointScorer {
  public static final String TYPE = "kv-cache-utilization-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public double score(PickRequest request, EndpointState endpoint) {
    return 1.0 - Math.max(0.0, Math.min(1.0, endpoint.metrics().kvCacheUsage()));
  }
}
