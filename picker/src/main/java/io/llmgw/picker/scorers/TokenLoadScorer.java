package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;

/**
 * Less prefill work waiting at the pod is better, counted in tokens rather than requests. A pod's token load is the uncached prompt tokens the gateway (this replica and, when they share, its
 * peers) sent it whose first token has not come back, reserved at decision time ({@link InFlight#prefillTokens}), plus
 * what the pod reports that no replica accounts for: each request it reports waiting beyond those the gateway knows
 * to be in prefill there (another client's, or sent before this replica started) costs this request's own prompt.
 * Normalised as {@code 1 − (load − min) / max(max − min, prompt)}: the least loaded pod scores 1, the most loaded 0
 * when the loads differ by more than this request's prompt, and pods within a small part of one prompt of each other
 * score nearly alike.
 *
 * <p>Why tokens: a pod's prefill time grows with the uncached tokens ahead of a request, not with their number, so one
 * 8,000-token prompt ahead weighs as forty 200-token ones. The queue scorer counts each as one.
 */
public final class TokenLoadScorer implements Scorer {
  public static final String TYPE = "token-load-scorer";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    int n = candidates.size();
    long perUnknown = Math.max(1, request.promptTokens());
    double min = Double.MAX_VALUE;
    double max = 0;
    for (int i = 0; i < n; i++) {
      double load = tokenLoad(candidates.get(i), perUnknown);
      out[i] = load;
      min = Math.min(min, load);
      max = Math.max(max, load);
    }
    // the spread counts in units of at least this request's prompt: 10 tokens between two pods is not a reason to
    // send a 2,000-token prompt to one rather than the other, as plain min–max would make it
    double spread = Math.max(max - min, perUnknown);
    for (int i = 0; i < n; i++) {
      out[i] = 1 - (out[i] - min) / spread;
    }
  }

  /** The prefill tokens waiting at the pod, as far as the gateway can tell; unknown waiters at {@code perUnknown}. */
  public static double tokenLoad(EndpointState e, long perUnknown) {
    InFlight inFlight = e.inFlight();
    int unknownWaiting = Math.max(0, e.metrics().waitingQueue() - inFlight.inPrefill());
    return inFlight.prefillTokens() + (double) unknownWaiting * perUnknown;
  }
}
