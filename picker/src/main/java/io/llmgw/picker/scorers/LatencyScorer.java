package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.PrefixView;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.latency.LatencyPrediction;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Predicted latency, lower is better: for each candidate, the request's own time to first token plus its output at the
 * predicted time per token, plus what it costs the requests already running there: they wait out its prefill (vLLM
 * prefills a newcomer within the step every running sequence waits on), then each step is longer by one more sequence
 * for as long as it decodes. Predictions come from the EPP's per-pod online
 * model ({@link LatencyEstimator}) over the pod's queue, running requests, KV use, the part of the prompt its prefix
 * cache is not expected to hold, and whether the request's adapter is in the running batch, needs a free slot, or must
 * wait for one. Scores are the best candidate's predicted cost over each one's, so 1 is the fastest. While the model
 * knows too little to predict for some candidate, it scores as the {@code scorers} policy does (queue 2, KV cache 2,
 * prefix 3, LoRA affinity 1, normalised): cold, it is the reference scorer set.
 */
public final class LatencyScorer implements Scorer, PrefixView {
  public static final String TYPE = "latency-scorer";
  /** Output tokens assumed for a request that does not say, before any response of its model was seen. */
  public static final int DEFAULT_OUTPUT_TOKENS = 128;

  private final LatencyEstimator estimator;
  private final PrefixHasher hasher;
  private final PrefixCacheIndex index;
  private final QueueScorer queue = new QueueScorer();
  private final KvCacheScorer kv = new KvCacheScorer();
  private final LoraAffinityScorer lora = new LoraAffinityScorer();

  public LatencyScorer(LatencyEstimator estimator, PrefixHasher hasher, int lruCapacityPerServer) {
    this.estimator = estimator;
    this.hasher = hasher;
    this.index = new PrefixCacheIndex(lruCapacityPerServer);
  }

  public PrefixHasher hasher() {
    return hasher;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    int n = candidates.size();
    double best = Double.POSITIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      out[i] = cost(request, candidates.get(i));
      if (Double.isNaN(out[i])) {
        coldScore(request, candidates, out);
        return;
      }
      best = Math.min(best, out[i]);
    }
    for (int i = 0; i < n; i++) {
      out[i] = out[i] <= 0 ? 1.0 : Math.max(best, 1e-3) / Math.max(out[i], 1e-3);
    }
  }

  /** Predicted milliseconds this request costs on the endpoint: its own latency and the delay it adds to others. */
  double cost(PickRequest request, EndpointState e) {
    LoadSnapshot load = snapshot(request, e);
    long prompt = request.promptTokens();
    LatencyPrediction p = estimator.predict(e.address(), load, prompt);
    if (Double.isNaN(p.ttftMs()) || Double.isNaN(p.tpotMs())) {
      return Double.NaN;
    }
    double output = estimator.expectedOutput(request.model(), request.maxOutputTokens(), DEFAULT_OUTPUT_TOKENS);
    double own = p.ttftMs() + output * p.tpotMs();
    // what the running sequences lose: they wait out this prefill, then every step is longer by one more sequence
    double prefill = Math.max(0, p.ttftMs() - estimator.predict(e.address(), load.withCachedShare(1.0), prompt).ttftMs());
    double perStep = Math.max(0, estimator.predict(e.address(), load.withRunning(load.running() + 1), prompt).tpotMs()
        - p.tpotMs());
    return own + load.running() * (prefill + output * perStep);
  }

  /** The endpoint's load as the latency model sees it for this request: which share of the prompt it likely caches. */
  LoadSnapshot snapshot(PickRequest request, EndpointState e) {
    return LoadSnapshot.of(e, request.model(), cachedShare(e.address(), request.prefixBlocks()));
  }

  @Override
  public double cachedShare(String address, long[] blocks) {
    return blocks.length == 0 ? 0.0 : (double) index.matchedBlocks(address, blocks) / blocks.length;
  }

  private void coldScore(PickRequest request, List<EndpointState> candidates, double[] out) {
    int n = candidates.size();
    double[] part = new double[n];
    Arrays.fill(out, 0, n, 0.0);
    queue.score(request, candidates, part);
    add(out, part, 2);
    kv.score(request, candidates, part);
    add(out, part, 2);
    lora.score(request, candidates, part);
    add(out, part, 1);
    for (int i = 0; i < n; i++) {
      out[i] = (out[i] + 3 * cachedShare(candidates.get(i).address(), request.prefixBlocks())) / 8;
    }
  }

  private static void add(double[] out, double[] part, double weight) {
    for (int i = 0; i < out.length && i < part.length; i++) {
      out[i] += weight * part[i];
    }
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    if (request.prefixBlocks().length > 0) {
      index.record(primary.address(), request.prefixBlocks());
    }
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    index.retainOnly(addresses);
  }
}
