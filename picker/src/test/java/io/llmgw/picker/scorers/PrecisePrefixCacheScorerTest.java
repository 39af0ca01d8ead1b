package io.llmgw.picker.scorers;

import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Pods;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.attributes.PromptBlocks;
import io.llmgw.picker.attributes.PromptTokens;
import io.llmgw.picker.attributes.RequestAttributes;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 1: pods with trusted events are scored by the engine's own cache; the others by where this replica
 * routed prompts; two scorers over the same index (two replicas) score alike.
 */
class PrecisePrefixCacheScorerTest {
  final EngineBlockIndex index = new EngineBlockIndex();
  final EndpointState a = pod(1, metrics(0, 0.1, Set.of()), new Pods.Pending());
  final EndpointState b = pod(2, metrics(0, 0.1, Set.of()), new Pods.Pending());
  final int[] prompt = IntStream.range(0, 64).toArray(); // 4 blocks of 16

  PrecisePrefixCacheScorer scorer() {
    return new PrecisePrefixCacheScorer(index, new PrefixHasher(), 1000, 1024);
  }

  PickRequest request(long... approximateBlocks) {
    return PickRequest.of("base").with(RequestAttributes.PROMPT_TOKENS, PromptTokens.of(prompt))
        .with(RequestAttributes.PROMPT_BLOCKS, PromptBlocks.fixed(approximateBlocks));
  }

  double[] score(PrecisePrefixCacheScorer s, PickRequest r) {
    double[] out = new double[2];
    s.score(r, List.of(a, b), out);
    return out;
  }

  @Test
  void everyReplicaScoresTheEnginesCacheAlike() {
    index.stored(b.address(), new long[] {1, 2, 3}, false, 0, Arrays.copyOf(prompt, 48), 16, null, "GPU");
    index.stored(a.address(), new long[] {9}, false, 0, Arrays.copyOf(prompt, 16), 16, null, "GPU");
    assertThat(score(scorer(), request())).containsExactly(0.25, 0.75);
    assertThat(score(scorer(), request())).as("another replica, nothing routed by it").containsExactly(0.25, 0.75);
  }

  @Test
  void aPodWithoutTrustedEventsIsScoredByWhereThisReplicaRoutedPrompts() {
    PrecisePrefixCacheScorer s = scorer();
    index.stored(b.address(), new long[] {1}, false, 0, Arrays.copyOf(prompt, 16), 16, null, "GPU");
    s.onPicked(request(11, 12), a);
    assertThat(score(s, request(11, 12))).as("a: approximate; b: its events").containsExactly(1.0, 0.25);
    index.lost(b.address());
    s.onPicked(request(11, 12), b);
    assertThat(score(s, request(11, 12, 13, 14))).as("b lost its stream: approximate too").containsExactly(0.5, 0.5);
  }

  @Test
  void thePromptIsTokenizedOnlyWhenSomePodsEventsCanBeMatched() {
    java.util.concurrent.atomic.AtomicInteger tokenized = new java.util.concurrent.atomic.AtomicInteger();
    PickRequest r = PickRequest.of("base").with(RequestAttributes.PROMPT_TOKENS, new PromptTokens(() -> {
      tokenized.incrementAndGet();
      return prompt;
    })).with(RequestAttributes.PROMPT_BLOCKS, PromptBlocks.fixed(new long[0]));
    score(scorer(), r);
    assertThat(tokenized).as("no pod publishes events").hasValue(0);
    index.stored(b.address(), new long[] {1}, false, 0, Arrays.copyOf(prompt, 16), 16, null, "GPU");
    assertThat(score(scorer(), r)).containsExactly(0.0, 0.25);
    assertThat(tokenized).as("once, whatever the pods").hasValue(1);
  }

  @Test
  void anAdaptersBlocksAreItsOwn() {
    index.stored(a.address(), new long[] {1}, false, 0, Arrays.copyOf(prompt, 16), 16, "sql-lora", "GPU");
    PickRequest forAdapter = PickRequest.of("sql-lora").with(RequestAttributes.PROMPT_TOKENS, PromptTokens.of(prompt))
        .with(RequestAttributes.PROMPT_BLOCKS, PromptBlocks.fixed(new long[0]));
    assertThat(score(scorer(), forAdapter)[0]).isEqualTo(0.25);
    index.stored(b.address(), new long[] {1}, false, 0, Arrays.copyOf(prompt, 16), 16, null, "GPU");
    assertThat(score(scorer(), forAdapter)[1]).as("the base model's blocks do not serve the adapter").isZero();
  }

  /**
   * Issue 50, item 3: the engines' events do not say which cache_salt a block was stored under, so a salted request
   * is scored by the approximate chain, which the salt enters, never by blocks another salt (or none) stored.
   */
  @Test
  void aSaltedRequestIsNotCreditedWithTheEnginesUnsaltedBlocks() {
    index.stored(b.address(), new long[] {1, 2, 3, 4}, false, 0, prompt, 16, null, "GPU");
    byte[] text = "a prompt of four blocks and a bit more, sixty-four bytes each...".repeat(4)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    PickRequest salted = PickRequest.of("base").with(RequestAttributes.PROMPT_TOKENS, PromptTokens.of(prompt))
        .with(RequestAttributes.PROMPT_BLOCKS, new PromptBlocks(new PrefixHasher(), max -> text, "tenant-a"));
    assertThat(score(scorer(), request())).as("unsalted: b's events").containsExactly(0.0, 1.0);
    assertThat(score(scorer(), salted)).as("salted: nothing this replica routed under the salt").containsExactly(0.0,
        0.0);
  }
}
