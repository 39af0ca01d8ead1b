package io.llmgw.picker.pickers;

import io.llmgw.picker.EndpointState;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/** The k best candidates by score in O(n·k); equal scores are ordered by a random draw so load spreads among equals. */
final class TopK {
  private TopK() {}

  static List<EndpointState> select(List<EndpointState> candidates, double[] scores, int limit, RandomGenerator rng) {
    int k = Math.min(limit, candidates.size());
    int[] best = new int[k];
    long[] tieKey = new long[k];
    int filled = 0;
    for (int i = 0; i < candidates.size(); i++) {
      long key = rng.nextLong();
      int pos = filled;
      while (pos > 0 && better(scores[i], key, scores[best[pos - 1]], tieKey[pos - 1])) {
        pos--;
      }
      if (pos >= k) {
        continue;
      }
      for (int j = Math.min(filled, k - 1); j > pos; j--) {
        best[j] = best[j - 1];
        tieKey[j] = tieKey[j - 1];
      }
      best[pos] = i;
      tieKey[pos] = key;
      if (filled < k) {
        filled++;
      }
    }
    List<EndpointState> out = new ArrayList<>(filled);
    for (int i = 0; i < filled; i++) {
      out.add(candidates.get(best[i]));
    }
    return out;
  }

  private static boolean better(double score, long key, double otherScore, long otherKey) {
    return score > otherScore || (score == otherScore && key > otherKey);
  }
}
