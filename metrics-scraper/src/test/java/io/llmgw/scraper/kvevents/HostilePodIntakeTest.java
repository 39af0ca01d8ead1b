package io.llmgw.scraper.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.picker.kvcache.BlockKeys;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.EngineBlockIndex.Loss;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 47: a pod whose events are too big or too many costs itself its blocks, counted, and never the others theirs;
 * it is followed again once it behaves (a message over the limit used to end its subscription for good).
 */
class HostilePodIntakeTest {
  static final int[] TOKENS = {1, 2, 3, 4, 5, 6, 7, 8};
  final AtomicLong nanos = new AtomicLong();
  final EngineBlockIndex index = new EngineBlockIndex(100_000, 1_000_000, 1_000_000_000L, nanos::get);
  FakeEventPod hostile;
  FakeEventPod quiet;
  KvEventSubscriber subscriber;
  long hostileSeq;
  long quietSeq;

  @AfterEach
  void stop() throws Exception {
    subscriber.close();
    hostile.close();
    if (quiet != null) {
      quiet.close();
    }
  }

  static byte[] twoBlocks(long first) {
    return KvBatches.stored(new long[] {first, first + 1}, null, TOKENS, 4);
  }

  /** A batch of {@code bytes} or so that the index accepts: one block of a long run of token ids. */
  static byte[] bigBatch(long hash, int bytes) {
    int[] tokens = new int[bytes / 5];
    java.util.Arrays.fill(tokens, 1_000_000);
    return KvBatches.stored(new long[] {hash}, null, tokens, tokens.length);
  }

  int matched(FakeEventPod pod) {
    EngineBlockIndex.View v = index.view(pod.address);
    return v == null ? -1 : v.matched(BlockKeys.chain(TOKENS, 4, null, 100));
  }

  /** Publishes until the pod's two blocks are in the index: a PUB socket drops what it sends while unconnected. */
  void heard(FakeEventPod pod, AtomicLong seq) {
    await().atMost(Duration.ofSeconds(20)).pollInSameThread().pollInterval(Duration.ofMillis(20)).until(() -> {
      pod.publish(seq.getAndIncrement(), twoBlocks(100));
      return matched(pod) == 2;
    });
  }

  @Test
  void aBatchOverTheLimitIsALossAndThePodIsFollowedAgain() {
    hostile = new FakeEventPod("127.0.0.121", 5557, "none");
    subscriber = new KvEventSubscriber(new KvEventSettings(5557, 0, "", Duration.ofSeconds(1))
        .withLimits(64 << 10, 64L << 20, 64L << 20), index).start();
    subscriber.pods(Set.of(hostile.address));
    AtomicLong seq = new AtomicLong();
    heard(hostile, seq);

    hostile.publish(seq.getAndIncrement(), bigBatch(7, 100 << 10));
    await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.stats().losses(Loss.DISCONNECTED) == 1);
    assertThat(subscriber.stats().disconnects()).isEqualTo(1);
    assertThat(matched(hostile)).as("its blocks dropped and distrusted").isEqualTo(-1);

    nanos.addAndGet(1_000_000_001L); // the relearning time has passed
    hostile.publish(seq.getAndIncrement(), KvBatches.cleared());
    heard(hostile, seq); // connected again by the subscriber, not left for good
  }

  @Test
  void aFloodingPodIsDistrustedAndPausedWhileTheOthersGoOn() {
    hostile = new FakeEventPod("127.0.0.122", 5557, "none");
    quiet = new FakeEventPod("127.0.0.123", 5557, "none");
    subscriber = new KvEventSubscriber(new KvEventSettings(5557, 0, "", Duration.ofSeconds(1))
        .withLimits(1 << 20, 64L << 20, 256 << 10), index).start();
    subscriber.pods(Set.of(hostile.address, quiet.address));
    AtomicLong hostileSeq = new AtomicLong();
    AtomicLong quietSeq = new AtomicLong();
    heard(hostile, hostileSeq);
    heard(quiet, quietSeq);

    for (int i = 0; i < 40; i++) { // bounded: 40 batches of 32 KiB, five times the pod's 256 KiB a second
      hostile.publish(hostileSeq.getAndIncrement(), bigBatch(1_000 + i, 32 << 10));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.stats().losses(Loss.FLOOD) == 1);
    assertThat(matched(hostile)).as("the flooding pod is distrusted").isEqualTo(-1);
    assertThat(subscriber.stats().losses(Loss.DISCONNECTED)).isZero();

    quiet.publish(quietSeq.getAndIncrement(), KvBatches.cleared());
    heard(quiet, quietSeq);
    assertThat(subscriber.stats().losses(Loss.GAP) + subscriber.stats().losses(Loss.GARBAGE)).isZero();

    nanos.addAndGet(1_000_000_001L);
    heard(hostile, hostileSeq); // once its pause is over, and it has calmed down, it is followed again
  }
}
