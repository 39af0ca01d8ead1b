package io.llmgw.picker.latency;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A load-aware latency model per pod, fitted online from what the EPP observes on response streams: time to first
 * token and time per output token as linear functions of what the request met when it was sent ({@link #FEATURES}):
 * the pod's waiting queue and running requests, the prompt tokens its prefix cache was not expected to hold, and
 * whether the request's adapter needed a free batch slot or had to wait for one. A pod with too few observations borrows
 * the fit over all pods (pools are usually homogeneous); with none at all the prediction is unknown. Thread-safe: each
 * model locks itself.
 */
public final class LatencyEstimator {
  private final LatencyModelSettings settings;
  private final Map<String, Models> pods = new ConcurrentHashMap<>();
  private final Models pooled;
  /** Recent mean output tokens per model (an exponential moving average over its responses). */
  private final Map<String, Double> outputs = new ConcurrentHashMap<>();
  private static final double OUTPUT_SMOOTHING = 0.05;
  private static final int MAX_MODELS = 10_000;
  /**
   * Longer responses than this are not learnt from: the count comes from the pod's {@code usage}, and one absurd claim
   * would otherwise set a model's expected output (and every latency cost) for hundreds of responses.
   */
  public static final long MAX_OUTPUT_TOKENS = 1 << 20;

  public LatencyEstimator(LatencyModelSettings settings) {
    this.settings = settings;
    this.pooled = new Models();
  }

  public LatencyModelSettings settings() {
    return settings;
  }

  /**
   * @param ttftMs observed time to first token, NaN when not observable (a non-streaming response)
   * @param tpotMs observed time per output token, NaN when fewer than two tokens came
   */
  public void observe(String address, LoadSnapshot load, long promptTokens, double ttftMs, double tpotMs) {
    double[] x = features(load, promptTokens);
    pods.computeIfAbsent(address, a -> new Models()).observe(x, ttftMs, tpotMs);
    pooled.observe(x, ttftMs, tpotMs);
  }

  public LatencyPrediction predict(String address, LoadSnapshot load, long promptTokens) {
    double[] x = features(load, promptTokens);
    Models own = pods.get(address);
    double ttft = own != null ? own.ttft(x) : Double.NaN;
    double tpot = own != null ? own.tpot(x) : Double.NaN;
    return new LatencyPrediction(Double.isNaN(ttft) ? pooled.ttft(x) : ttft,
        Double.isNaN(tpot) ? pooled.tpot(x) : tpot);
  }

  /**
   * The pod's own fit alone, NaN while it has too few observations: what the capacity plan reads, since the pooled fit
   * mixes every pool's pods (a large model's with a small one's) and a new pod would borrow it.
   */
  public LatencyPrediction predictOwn(String address, LoadSnapshot load, long promptTokens) {
    Models own = pods.get(address);
    if (own == null) {
      return new LatencyPrediction(Double.NaN, Double.NaN);
    }
    double[] x = features(load, promptTokens);
    return new LatencyPrediction(own.ttft(x), own.tpot(x));
  }

  /** A response of {@code model} carried {@code tokens} output tokens; none, or too many, teach nothing. */
  public void observeOutput(String model, long tokens) {
    if (tokens <= 0 || tokens > MAX_OUTPUT_TOKENS || model == null) {
      return;
    }
    if (outputs.size() >= MAX_MODELS && !outputs.containsKey(model)) {
      outputs.clear(); // models come from routes, so this only happens when routes churn for days: start over
    }
    outputs.compute(model, (m, mean) -> mean == null ? (double) tokens : mean + OUTPUT_SMOOTHING * (tokens - mean));
  }

  /**
   * The output a request is expected to produce: the model's recent mean, at most what the request allows
   * ({@code maxTokens}, 0 when it does not say), else that limit, else {@code fallback}. A limit is a cap, not a length:
   * clients often allow far more than a model says.
   */
  public double expectedOutput(String model, int maxTokens, int fallback) {
    Double mean = outputs.get(model);
    if (mean != null) {
      return maxTokens > 0 ? Math.min(mean, maxTokens) : mean;
    }
    return maxTokens > 0 ? maxTokens : fallback;
  }

  /** Forgets pods that left. */
  public void retainOnly(Set<String> live) {
    pods.keySet().retainAll(live);
  }

  /** The model's inputs, in the order of {@link #pooledFit}'s weights. */
  public static final List<String> FEATURES = List.of("constant", "waiting", "running", "uncached prompt (1k tokens)",
      "adapter needs a free slot", "adapter waits for a slot");

  /**
   * KV-cache use is not among them: it grows with the running sequences' length, so next to {@code running} the fit
   * split one effect between two collinear inputs at random (a run fitted TPOT at −0.2 ms per running sequence and +83 ms
   * per unit of KV use, the next +0.4 and +22), and the per-step cost the latency scorer reads from {@code running} was
   * lost. A full cache shows as waiting requests, which are an input.
   */
  private static double[] features(LoadSnapshot load, long promptTokens) {
    double uncached = promptTokens * (1 - Math.min(1, Math.max(0, load.cachedShare()))) / 1000.0;
    return new double[] {1, load.waiting(), load.running(), uncached,
        load.adapterSlot() == LoadSnapshot.FREE_SLOT ? 1 : 0, load.adapterSlot() == LoadSnapshot.NO_SLOT ? 1 : 0};
  }

  /**
   * The fit over all pods: time to first token's weights, then time per output token's, in {@link #FEATURES} order (ms
   * per unit), and the decayed number of observations behind each. For explaining the model, not for routing.
   */
  public Fit pooledFit() {
    return pooled.fit();
  }

  /** A model's weights in {@link #FEATURES} order and the observations behind them. */
  public record Fit(double[] ttftWeights, double ttftObservations, double[] tpotWeights, double tpotObservations) {}

  private final class Models {
    private final OnlineRegression ttft = new OnlineRegression(FEATURES.size(), settings.decay(), settings.ridge());
    private final OnlineRegression tpot = new OnlineRegression(FEATURES.size(), settings.decay(), settings.ridge());

    synchronized Fit fit() {
      return new Fit(ttft.weights(), ttft.weight(), tpot.weights(), tpot.weight());
    }

    synchronized void observe(double[] x, double ttftMs, double tpotMs) {
      if (!Double.isNaN(ttftMs)) {
        ttft.observe(x, ttftMs);
      }
      if (!Double.isNaN(tpotMs)) {
        tpot.observe(x, tpotMs);
      }
    }

    synchronized double ttft(double[] x) {
      return ttft.weight() < settings.minObservations() ? Double.NaN : Math.max(0, ttft.predict(x));
    }

    synchronized double tpot(double[] x) {
      return tpot.weight() < settings.minObservations() ? Double.NaN : Math.max(0, tpot.predict(x));
    }
  }
}
