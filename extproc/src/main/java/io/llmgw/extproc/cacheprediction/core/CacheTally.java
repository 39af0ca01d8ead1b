package io.llmgw.extproc.cacheprediction.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The predictions against the engines' reports, summed per pool for the status page: how many requests were compared,
 * and the tokens predicted, reported and matched. Bounded: pools come from the configuration, and past
 * {@value #MAX_POOLS} a new one is not tallied.
 */
public final class CacheTally {
  static final int MAX_POOLS = 1024;

  /**
   * One pool's sums.
   *
   * @param precision matched / predicted: how much of what the gateway believed cached was; null before a prediction
   * @param recall matched / reported: how much of what was cached the gateway knew of; null before a report
   */
  public record Row(String pool, long requests, long predictedTokens, long reportedTokens, long matchedTokens,
      Double precision, Double recall) {}

  private record Sums(LongAdder requests, LongAdder predicted, LongAdder reported, LongAdder matched) {
    Sums() {
      this(new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder());
    }
  }

  private final Map<String, Sums> byPool = new ConcurrentHashMap<>();

  public void observed(CachePrediction p) {
    Sums s = byPool.get(p.pool());
    if (s == null) {
      if (byPool.size() >= MAX_POOLS) {
        return;
      }
      s = byPool.computeIfAbsent(p.pool(), k -> new Sums());
    }
    s.requests().increment();
    s.predicted().add(p.predictedTokens());
    s.reported().add(p.reportedTokens());
    s.matched().add(p.matchedTokens());
  }

  /** Every pool's sums, by pool. */
  public List<Row> rows() {
    List<Row> out = new ArrayList<>();
    byPool.forEach((pool, s) -> {
      long predicted = s.predicted().sum();
      long reported = s.reported().sum();
      long matched = s.matched().sum();
      out.add(new Row(pool, s.requests().sum(), predicted, reported, matched,
          predicted == 0 ? null : matched / (double) predicted, reported == 0 ? null : matched / (double) reported));
    });
    out.sort(Comparator.comparing(Row::pool));
    return out;
  }
}
