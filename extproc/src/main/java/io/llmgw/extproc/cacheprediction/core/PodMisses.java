package io.llmgw.extproc.cacheprediction.core;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each pod's run of predictions that missed (off by more than {@value #MISS_SHARE} of the prompt): a run of
 * {@value #RUN} is a pattern worth a cause, not one unlucky request. Bounded: cleared when it outgrows any real fleet.
 */
public final class PodMisses {
  static final double MISS_SHARE = 0.25;
  static final int RUN = 3;
  static final int MAX_PODS = 16_384;

  private final Map<String, Integer> runs = new ConcurrentHashMap<>();

  /**
   * Counts the prediction against the pod's run; answers the cause when this miss makes a run of {@value #RUN} (and
   * every {@value #RUN} after it), else null.
   *
   * @param eventsLost whether the pod's KV events are distrusted now (lost, garbled, relearning)
   */
  public MissCause observe(String pod, CachePrediction p, boolean eventsLost) {
    if (p.errorShare() <= MISS_SHARE) {
      runs.remove(pod);
      return null;
    }
    if (runs.size() >= MAX_PODS) {
      runs.clear();
    }
    int run = runs.merge(pod, 1, Integer::sum);
    if (run % RUN != 0) {
      return null;
    }
    return eventsLost ? MissCause.EVENTS_LOST
        : p.predictedTokens() > p.reportedTokens() ? MissCause.OVER_PREDICTED : MissCause.UNDER_PREDICTED;
  }
}
