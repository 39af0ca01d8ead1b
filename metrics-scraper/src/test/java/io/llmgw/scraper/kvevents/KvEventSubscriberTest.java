package io.llmgw.scraper.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.picker.kvcache.BlockKeys;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.EngineBlockIndex.Loss;
import io.llmgw.picker.kvcache.PodSnapshot;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: the subscriber keeps the index true to a pod's stream: in order, a gap filled by replay, and every kind of
 * bad stream (a replay that never answers, garbage, a restart, an endless flood) degrading that pod alone, counted,
 * never growing past the cap; a pod that leaves is dropped.
 */
class KvEventSubscriberTest {
  static final int[] TOKENS = java.util.stream.IntStream.range(0, 32).toArray(); // 8 blocks of 4
  final AtomicLong nanos = new AtomicLong();
  final EngineBlockIndex index = new EngineBlockIndex(1_000, 10_000, 1_000_000_000L, nanos::get);
  KvEventSubscriber subscriber;
  FakeEventPod pod;
  long seq;
  long replaysBefore;
  long unansweredBefore;

  void start(String host, String replay) {
    pod = new FakeEventPod(host, 5557, replay);
    subscriber = new KvEventSubscriber(new KvEventSettings(5557, replay.equals("none") ? 0 : 5558, "kv-events",
        Duration.ofSeconds(1)), index).start();
    subscriber.pods(Set.of(pod.address));
    // ZeroMQ drops what is published before the subscription is connected: publish until one batch is applied. On
    // this thread: a ZeroMQ socket is not to be used by an awaiting thread that may be interrupted
    await().atMost(Duration.ofSeconds(10)).pollInSameThread().pollInterval(Duration.ofMillis(20)).until(() -> {
      pod.publish(seq++, KvBatches.cleared());
      return subscriber.stats().batches() > 0;
    });
    // then a marker: once it is in the index and cleared again, every later batch arrives in order
    int[] mark = {-7, -7, -7, -7};
    pod.publish(seq++, KvBatches.stored(new long[] {-7}, null, mark, 4));
    await().atMost(Duration.ofSeconds(10)).until(() -> matched(mark) == 1);
    pod.publish(seq++, KvBatches.cleared());
    await().atMost(Duration.ofSeconds(10)).until(() -> matched(mark) == 0);
    replaysBefore = subscriber.stats().replays();
    unansweredBefore = subscriber.stats().replaysUnanswered();
  }

  @AfterEach
  void stop() throws Exception {
    subscriber.close();
    pod.close();
  }

  byte[] blocks(int from, int to) {
    long[] hashes = java.util.stream.LongStream.range(100 + from, 100 + to).toArray();
    return KvBatches.stored(hashes, from == 0 ? null : 100L + from - 1,
        java.util.Arrays.copyOfRange(TOKENS, from * 4, to * 4), 4);
  }

  int matched() {
    return matched(TOKENS);
  }

  int matched(int[] tokens) {
    EngineBlockIndex.View v = index.view(pod.address);
    return v == null ? -1 : v.matched(BlockKeys.chain(tokens, 4, null, 100));
  }

  @Test
  void aGapIsFilledFromTheReplaySocket() {
    start("127.0.0.111", "answer");
    pod.publish(seq++, blocks(0, 2));
    pod.bufferOnly(seq++, blocks(2, 4)); // missed by the subscriber
    pod.publish(seq++, blocks(4, 8));
    await().atMost(Duration.ofSeconds(10)).until(() -> matched() == 8);
    assertThat(subscriber.stats().replays() - replaysBefore).isEqualTo(1);
    assertThat(subscriber.stats().replaysUnanswered() - unansweredBefore).isZero();
    assertThat(subscriber.stats().losses(Loss.GAP)).isZero();
  }

  @Test
  void aReplayThatNeverAnswersCostsThatPodItsBlocksAndNothingElse() {
    start("127.0.0.112", "silent");
    pod.publish(seq++, blocks(0, 2));
    pod.bufferOnly(seq++, blocks(2, 4));
    pod.publish(seq++, blocks(4, 8));
    await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.stats().losses(Loss.GAP) == 1);
    assertThat(subscriber.stats().replaysUnanswered()).as("asked, never answered, then not asked again at once")
        .isPositive();
    assertThat(matched()).as("distrusted while it relearns").isEqualTo(-1);
    nanos.addAndGet(1_000_000_001L);
    pod.publish(seq++, KvBatches.cleared());
    pod.publish(seq++, blocks(0, 2));
    await().atMost(Duration.ofSeconds(10)).until(() -> matched() == 2);
  }

  @Test
  void garbageAndARestartAreCountedAndTheStreamGoesOn() {
    start("127.0.0.113", "none");
    pod.publish(seq++, blocks(0, 2));
    pod.publishRaw("kv-events".getBytes(), new byte[] {1, 2}); // two frames, a 2-byte sequence number
    pod.publish(seq++, new byte[] {(byte) 0xc1, 0, 1});
    await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.stats().losses(Loss.GARBAGE) == 2);
    assertThat(index.blocks()).isZero();
    nanos.addAndGet(1_000_000_001L);
    pod.publish(seq++, blocks(0, 2));
    await().atMost(Duration.ofSeconds(10)).until(() -> matched() == 2);

    seq = 0; // the engine restarted: its numbering starts over and its cache is empty
    pod.publish(seq++, blocks(0, 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.stats().restarts() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> matched() == 1);
  }

  /**
   * JeroMQ leaves a few SUB connections in a hundred to a fresh PUB connected but never handshaken; the subscriber's
   * handshake bound makes them connect again. Twenty subscriptions in a row must each be heard (without the bound, the
   * chance that twenty are is about one in three).
   */
  @Test
  void everySubscriptionToAFreshPublisherIsHeard() throws Exception {
    for (int round = 0; round < 20; round++) {
      seq = 0;
      start("127.0.0.115", "none");
      subscriber.close();
      pod.close();
    }
    start("127.0.0.115", "none"); // closed by the test's own teardown
  }

  /**
   * Issue 51: a peer holding the secret hands a starting replica the blocks of pods it names; those of a pod outside
   * the pool this replica follows are dropped once it subscribes, not kept until the caps push them out.
   */
  @Test
  void blocksAPeerSeededForAPodOutsideThePoolAreDroppedAtSubscription() {
    assertThat(index.seed(new PodSnapshot("127.0.0.199:8000", 41, 4, false, new long[] {1, 2}, new long[] {11, 12})))
        .isTrue();
    assertThat(index.blocks()).isEqualTo(2);
    start("127.0.0.116", "none");
    assertThat(index.view("127.0.0.199:8000")).isNull();
    assertThat(index.blocks()).isZero();
  }

  @Test
  void anEndlessStreamOfNewBlocksStaysWithinTheCapAndAPodThatLeavesIsDropped() {
    start("127.0.0.114", "none");
    int[] tokens = new int[4];
    long parent = 0;
    long batchesBefore = subscriber.stats().batches();
    for (int i = 0; i < 5_000; i++) { // bounded: 5,000 batches of one block, over a cap of 1,000
      tokens[0] = i;
      long hash = 1_000_000 + i;
      pod.publish(seq++, KvBatches.stored(new long[] {hash}, i == 0 ? null : parent, tokens, 4));
      parent = hash;
      if (i % 500 == 499) { // a PUB socket drops past its high-water mark (1,000): a gap would be a different loss
        long published = i + 1;
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.stats().batches() - batchesBefore >= published);
      }
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> subscriber.stats().losses(Loss.OVER_CAP) >= 1);
    assertThat(index.blocks()).isLessThanOrEqualTo(1_000);
    subscriber.pods(Set.of());
    await().atMost(Duration.ofSeconds(10)).until(() -> index.view(pod.address) == null && index.blocks() == 0);
  }
}
