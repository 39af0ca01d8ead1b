package io.llmgw.extproc.cacheprediction.core;

import java.util.Locale;

/**
 * What the gateway believed the chosen pod's prefix cache held of a request's prompt when it picked the pod, against
 * what the engine then reported ({@code cached_tokens}): the evidence that precise (or approximate) prefix routing is
 * true, or the first sign that it is not.
 *
 * @param pool the pool of the pod that served
 * @param promptTokens the prompt's tokens as the engine counted them
 * @param predictedTokens the share of the prompt the profile's prefix index believed cached there, in the engine's
 *     tokens
 * @param reportedTokens the prompt tokens the engine found cached
 */
public record CachePrediction(String pool, long promptTokens, long predictedTokens, long reportedTokens) {
  /** From the share the prefix index believed cached at the pick and the engine's own counts. */
  public static CachePrediction of(String pool, double predictedShare, long promptTokens, long reportedTokens) {
    double share = Double.isNaN(predictedShare) ? 0 : Math.min(1, Math.max(0, predictedShare));
    return new CachePrediction(pool, promptTokens, Math.round(share * promptTokens), reportedTokens);
  }

  /** The tokens both the prediction and the engine count as cached. */
  public long matchedTokens() {
    return Math.min(predictedTokens, reportedTokens);
  }

  /** How far the prediction was off, as a share of the prompt: 0 exact, 1 all wrong. */
  public double errorShare() {
    return promptTokens == 0 ? 0 : Math.abs(predictedTokens - reportedTokens) / (double) promptTokens;
  }

  /** The line a decision's explanation gains once the response ends. */
  public String explain() {
    return String.format(Locale.ROOT, "predicted %,d cached; engine reported %,d (of %,d prompt tokens)",
        predictedTokens, reportedTokens, promptTokens);
  }
}
