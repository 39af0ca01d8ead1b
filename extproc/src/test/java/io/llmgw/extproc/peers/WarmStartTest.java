package io.llmgw.extproc.peers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Issue 51, item 2: ready once every peer answered, or when the time runs out; warm only with every answer. */
class WarmStartTest {
  @Test
  void readyOnceEveryPeerAnsweredAndToldOnce() {
    AtomicInteger told = new AtomicInteger();
    WarmStart w = new WarmStart(() -> Set.of("a:1", "b:1"), Duration.ofHours(1));
    w.onWarm(told::incrementAndGet);
    w.answered("a:1");
    assertThat(w.ready()).as("not started: the time has not begun").isFalse();
    w.begin();
    w.check();
    assertThat(w.ready()).isFalse();
    assertThat(w.warm()).isFalse();
    w.answered("b:1");
    assertThat(w.ready()).isTrue();
    assertThat(w.warm()).isTrue();
    w.answered("b:1");
    w.check();
    assertThat(told).hasValue(1);
  }

  @Test
  void readyWithoutThemWhenTheTimeRunsOutAndWarmWhenTheyAnswerLater() {
    WarmStart w = new WarmStart(() -> Set.of("a:1"), Duration.ZERO);
    w.begin();
    w.check();
    assertThat(w.ready()).as("a peer cut off must not keep a replica out of service").isTrue();
    assertThat(w.warm()).isFalse();
    w.answered("a:1");
    assertThat(w.warm()).as("heard later: the gauge says so").isTrue();
  }

  @Test
  void aReplicaWithoutPeersIsWarmAtOnce() {
    WarmStart w = new WarmStart(Set::of, Duration.ofHours(1));
    w.begin();
    w.check();
    assertThat(w.ready()).isTrue();
    assertThat(w.warm()).isTrue();
  }
}
