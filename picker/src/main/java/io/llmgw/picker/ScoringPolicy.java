package io.llmgw.picker;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** Weighted sum of scorers; the highest total wins, ties broken at random (GIE's max-score picker). */
public final class ScoringPolicy implements Policy {
  private final List<WeightedScorer> scorers;
  private final Supplier<RandomGenerator> random;

  public ScoringPolicy(List<WeightedScorer> scorers, Supplier<RandomGenerator> random) {
    this.scorers = List.copyOf(scorers);
    this.random = random;
  }

  @Override
  public List<EndpointState> rank(PickRequest request, List<EndpointState> candidates, int limit) {
    int n = candidates.size();
    double[] total = new double[n];
    double[] partial = new double[n];
    for (WeightedScorer ws : scorers) {
      ws.scorer().score(request, candidates, partial);
      for (int i = 0; i < n; i++) {
        total[i] += ws.weight() * partial[i];
      }
    }
    return topK(candidates, total, Math.min(limit, n));
  }

  /** Selection of the k best in O(n·k); equal totals are ordered by a random draw so load spreads among equals. */
  private List<EndpointState> topK(List<EndpointState> candidates, double[] total, int k) {
    RandomGenerator rng = random.get();
    int[] best = new int[k];
    long[] tieKey = new long[k];
    int filled = 0;
    for (int i = 0; i < total.length; i++) {
      long key = rng.nextLong();
      int pos = filled;
      while (pos > 0 && better(total[i], key, total[best[pos - 1]], tieKey[pos - 1])) {
        pos--;
      }
      if (pos >= k) {
        continue;
      }
      int last = Math.min(filled, k - 1);
      for (int j = last; j > pos; j--) {
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

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    for (WeightedScorer ws : scorers) {
      ws.scorer().onPicked(request, primary);
    }
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    for (WeightedScorer ws : scorers) {
      ws.scorer().retainOnly(addresses);
    }
  }
}
