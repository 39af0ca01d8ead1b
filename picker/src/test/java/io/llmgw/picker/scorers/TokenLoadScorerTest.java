package io.llmgw.picker.scorers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickRequest;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 29, item 3: load counted in the prefill tokens waiting at each pod, not in requests. */
class TokenLoadScorerTest {
  final TokenLoadScorer scorer = new TokenLoadScorer();

  /** What the gateway has in prefill at a pod: {@code requests} requests bringing {@code tokens} tokens in all. */
  record Prefill(int requests, long tokens) implements InFlight {
    @Override
    public int forModel(String model) {
      return requests;
    }

    @Override
    public int total() {
      return requests;
    }

    @Override
    public int sentSince(Instant reportedAt) {
      return requests;
    }

    @Override
    public long prefillTokens() {
      return tokens;
    }

    @Override
    public int inPrefill() {
      return requests;
    }
  }

  double[] score(long promptTokens, EndpointState... pods) {
    double[] out = new double[pods.length];
    scorer.score(PickRequest.of("base").withPromptTokens(promptTokens), List.of(pods), out);
    return out;
  }

  @Test
  void oneLongPromptAheadWeighsMoreThanSeveralShortOnes() {
    EndpointState oneLong = pod(1, metrics(0, 0.1, Set.of()), new Prefill(1, 8_000));
    EndpointState fourShort = pod(2, metrics(0, 0.1, Set.of()), new Prefill(4, 800));
    EndpointState idle = pod(3, metrics(0, 0.1, Set.of()), new Prefill(0, 0));
    double[] s = score(500, oneLong, fourShort, idle);
    assertThat(s[2]).isEqualTo(1.0);
    assertThat(s[1]).isEqualTo(0.9);
    assertThat(s[0]).isZero();
    assertThat(new QueueScorerView().queueOrder(oneLong, fourShort))
        .as("the queue scorer, counting requests, prefers the pod with the 8,000-token prompt ahead").isTrue();
  }

  @Test
  void podsWithinOnePromptOfEachOtherScoreAlmostAlike() {
    double[] s = score(2_000, pod(1, metrics(0, 0, Set.of()), new Prefill(1, 10)),
        pod(2, metrics(0, 0, Set.of()), new Prefill(0, 0)));
    assertThat(s[1]).isEqualTo(1.0);
    assertThat(s[0]).isCloseTo(0.995, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void waitersThePodReportsThatNoReplicaAccountsForCostThisRequestsPromptEach() {
    EndpointState othersQueue = pod(1, metrics(3, 0, Set.of()), new Prefill(1, 400)); // 2 unknown waiters
    EndpointState ours = pod(2, metrics(1, 0, Set.of()), new Prefill(1, 1_500)); // the waiter is ours
    double[] s = score(1_000, othersQueue, ours);
    assertThat(TokenLoadScorer.tokenLoad(othersQueue, 1_000)).isEqualTo(2_400);
    assertThat(TokenLoadScorer.tokenLoad(ours, 1_000)).isEqualTo(1_500);
    assertThat(s[1]).isEqualTo(1.0);
    assertThat(s[0]).as("900 tokens more: most of one 1,000-token prompt").isCloseTo(0.1,
        org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void equalLoadsScoreOneEachAndAnUnknownPromptCountsAsOneToken() {
    assertThat(score(0, pod(1, metrics(0, 0, Set.of()), InFlight.NONE), pod(2, metrics(0, 0, Set.of()),
        InFlight.NONE))).containsExactly(1.0, 1.0);
    double[] s = score(0, pod(1, metrics(0, 0, Set.of()), new Prefill(1, 3)),
        pod(2, metrics(0, 0, Set.of()), new Prefill(0, 0)));
    assertThat(s).containsExactly(0.0, 1.0);
  }

  /** The queue scorer over two pods: whether it ranks the first above the second. */
  static final class QueueScorerView {
    boolean queueOrder(EndpointState first, EndpointState second) {
      double[] out = new double[2];
      new QueueScorer().score(PickRequest.of("base"), List.of(first, second), out);
      return out[0] > out[1];
    }
  }
}
