package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.PrefixView;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
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
  /** Where prompts went: the same index and hashing as the prefix-cache scorer, which it also is in the cold score. */
  private final PrefixCacheScorer prefix;
  private final QueueScorer queue = new QueueScorer();
  private final KvCacheScorer kv = new KvCacheScorer();
  private final LoraAffinityScorer lora = new LoraAffinityScorer();

  public LatencyScorer(LatencyEstimator estimator, PrefixHasher hasher, int lruCapacityPerServer) {
    this(estimator, new PrefixCacheScorer(hasher, lruCapacityPerServer));
  }

  /** @param prefix the prefix-cache scorer it reads where prompts went from, and records them into */
  public LatencyScorer(LatencyEstimator estimator, PrefixCacheScorer prefix) {
    this.estimator = estimator;
    this.prefix = prefix;
  }

  @Override
  public PrefixHasher hasher() {
    return prefix.hasher();
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.PROMPT_BLOCKS, RequestAttributes.MAX_OUTPUT_TOKENS);
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    int n = candidates.size();
    double output = estimator.expectedOutput(request.model(),
        request.attributes().getOrDefault(RequestAttributes.MAX_OUTPUT_TOKENS, 0), DEFAULT_OUTPUT_TOKENS);
    double best = Double.POSITIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      out[i] = cost(request, candidates.get(i), output);
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

  /**
   * Predicted milliseconds this request costs on the endpoint, {@code output} tokens long: its own latency and the
   * delay it adds to the sequences running there; NaN while the model cannot predict for the endpoint.
   */
  double cost(PickRequest request, EndpointState e, double output) {
    LoadSnapshot load = LoadSnapshot.of(e, request.model(), cachedShare(e.address(), request.prefixBlocks()));
    long prompt = request.promptTokens();
    LatencyPrediction p = estimator.predict(e.address(), load, prompt);
    if (Double.isNaN(p.ttftMs()) || Double.isNaN(p.tpotMs())) {
      return Double.NaN;
    }
    double own = p.ttftMs() + output * p.tpotMs();
    // what the running sequences lose: they wait out this prefill, then every step is longer by one more sequence
    double prefill = Math.max(0,
        p.ttftMs() - estimator.predict(e.address(), load.withCachedShare(1.0), prompt).ttftMs());
    double perStep = Math.max(0, estimator.predict(e.address(), load.withRunning(load.running() + 1), prompt).tpotMs()
        - p.tpotMs());
    return own + load.running() * (prefill + output * perStep);
  }

  @Override
  public double cachedShare(String address, long[] blocks) {
    return prefix.cachedShare(address, blocks);
  }

  /** The {@code scorers} policy's weights: queue 2, KV cache 2, prefix cache 3, LoRA affinity 1, over their sum. */
  private void coldScore(PickRequest request, List<EndpointState> candidates, double[] out) {
    int n = candidates.size();
    double[] part = new double[n];
    Arrays.fill(out, 0, n, 0.0);
    add(out, part, queue, 2, request, candidates);
    add(out, part, kv, 2, request, candidates);
    add(out, part, prefix, 3, request, candidates);
    add(out, part, lora, 1, request, candidates);
    for (int i = 0; i < n; i++) {
      out[i] /= 8;
    }
  }

  private static void add(double[] out, double[] part, Scorer scorer, double weight, PickRequest request,
      List<EndpointState> candidates) {
    scorer.score(request, candidates, part);
    for (int i = 0; i < part.length; i++) {
      out[i] += weight * part[i];
    }
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    prefix.onPicked(request, primary);
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    prefix.retainOnly(addresses);
  }
}
