package io.llmgw.picker.latency;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A load-aware latency model per pod, fitted online from what the EPP observes on response streams: time to first
 * token and time per output token as linear functions of the pod's waiting queue, its running requests and the prompt's
 * length at the moment the request was sent. A pod with too few observations borrows the fit over all pods (pools are
 * usually homogeneous); with none at all the prediction is unknown. Thread-safe: each model locks itself.
 */
public final class LatencyEstimator {
  private final LatencyModelSettings settings;
  private final Map<String, Models> pods = new ConcurrentHashMap<>();
  private final Models pooled;

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
    return new LatencyPrediction(Double.isNaN(ttft) ? pooled.ttft(x) : ttft, Double.isNaN(tpot) ? pooled.tpot(x) : tpot);
  }

  /** Forgets pods that left. */
  public void retainOnly(Set<String> live) {
    pods.keySet().retainAll(live);
  }

  private static double[] features(LoadSnapshot load, long promptTokens) {
    return new double[] {1, load.waiting(), load.running(), promptTokens / 1000.0};
  }

  private final class Models {
    private final OnlineRegression ttft = new OnlineRegression(4, settings.decay(), settings.ridge());
    private final OnlineRegression tpot = new OnlineRegression(4, settings.decay(), settings.ridge());

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
