package io.llmgw.picker.routed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: what one replica routed reaches its peers' indexes once, only when it has peers, only for the pool's
 * pods, and never more than the outbox holds; the latest of it waits for a peer that starts watching.
 */
class RoutedPrefixesTest {
  static final String P = "10.0.0.1:8000";
  static final String Q = "10.0.0.2:8000";

  @Test
  void onlyBlocksNewAtThePodGoOutAndOnlyWithPeers() {
    RoutedPrefixes here = new RoutedPrefixes();
    RoutedIndex index = here.index(64, 1_000);
    index.record(P, new long[] {1, 2});
    assertThat(here.drain()).as("no peers: nothing kept").isEmpty();
    assertThat(here.recent()).isEmpty();

    here.keep(true);
    index.record(P, new long[] {1, 2, 3, 4}); // 1 and 2 were there: only the new tail goes
    index.record(Q, new long[] {1, 2});
    index.record(P, new long[] {1, 2, 3});
    List<RoutedBlocks> out = here.drain();
    assertThat(out).hasSize(2);
    assertThat(out.get(0).address()).isEqualTo(P);
    assertThat(out.get(0).blocks()).containsExactly(3, 4);
    assertThat(out.get(0).blockBytes()).isEqualTo(64);
    assertThat(out.get(1).blocks()).containsExactly(1, 2);
    assertThat(here.sharedBlocks()).isEqualTo(4);
    assertThat(here.drain()).as("each once").isEmpty();

    index.record(P, new long[] {5});
    here.discardOutbox();
    assertThat(here.drain()).as("nobody watched this tick: not sent later").isEmpty();
    assertThat(here.recent()).as("but kept for whoever watches next, oldest first")
        .extracting(b -> b.blocks().length).containsExactly(2, 2, 1);
  }

  @Test
  void theRecentRingKeepsTheNewestWithinItsBounds() {
    RoutedPrefixes r = new RoutedPrefixes(5);
    RoutedIndex index = r.index(64, 1_000);
    r.keep(true);
    index.record(P, new long[] {1, 2, 3});
    index.record(Q, new long[] {1, 2});
    index.record(Q, new long[] {7, 8});
    assertThat(r.recent()).as("five blocks at most: the oldest went").extracting(b -> b.blocks()[0])
        .containsExactly(1L, 7L);
    index.record(P, new long[] {10, 11, 12, 13, 14, 15});
    assertThat(r.recent()).as("larger than the ring: not kept").hasSize(2);
  }

  @Test
  void aPeersBlocksAreLearnedForThePoolsPodsOnlyAndNotPassedOn() {
    RoutedPrefixes there = new RoutedPrefixes();
    RoutedIndex sameSize = there.index(64, 1_000);
    RoutedIndex otherSize = there.index(128, 1_000);
    there.keep(true);
    List<RoutedBlocks> heard = List.of(new RoutedBlocks(64, P, new long[] {1, 2, 3}),
        new RoutedBlocks(64, "10.9.9.9:8000", new long[] {1}));
    there.learn(heard);
    assertThat(sameSize.matchedBlocks(P, new long[] {1, 2, 3})).as("no pods known yet: nothing kept").isZero();

    sameSize.retainOnly(Set.of(P, Q));
    otherSize.retainOnly(Set.of(P, Q));
    there.learn(heard);
    assertThat(sameSize.matchedBlocks(P, new long[] {1, 2, 3, 9})).isEqualTo(3);
    assertThat(sameSize.matchedBlocks("10.9.9.9:8000", new long[] {1})).as("not a pod of the pool").isZero();
    assertThat(otherSize.matchedBlocks(P, new long[] {1})).as("hashed with another block size").isZero();
    assertThat(there.learnedBlocks()).isEqualTo(8);
    assertThat(there.drain()).as("learned, not re-sent: every replica hears every peer itself").isEmpty();
    assertThat(there.recent()).isEmpty();
    sameSize.record(P, new long[] {1, 2, 3});
    assertThat(there.drain()).as("already known there").isEmpty();
  }

  @Test
  void scorersAskingForTheSameIndexShareIt() {
    RoutedPrefixes r = new RoutedPrefixes();
    assertThat(r.index(64, 1_000)).isSameAs(r.index(64, 1_000)).isNotSameAs(r.index(64, 2_000));
  }

  @Test
  void aFullOutboxDropsWhatDoesNotFitAndCountsIt() {
    RoutedPrefixes r = new RoutedPrefixes(5);
    RoutedIndex index = r.index(64, 1_000);
    r.keep(true);
    index.record(P, new long[] {1, 2, 3});
    index.record(Q, new long[] {1, 2, 3});
    index.record(Q, new long[] {7, 8});
    assertThat(r.droppedBlocks()).isEqualTo(3);
    assertThat(r.drain()).extracting(b -> b.blocks().length).containsExactly(3, 2);
    RoutedPrefixes many = new RoutedPrefixes();
    RoutedIndex m = many.index(64, 1_000_000);
    many.keep(true);
    for (int i = 0; i < RoutedPrefixes.MAX_OUTBOX_PICKS + 10; i++) {
      m.record(P, new long[] {i});
    }
    assertThat(many.drain()).hasSize(RoutedPrefixes.MAX_OUTBOX_PICKS);
    assertThat(many.droppedBlocks()).isEqualTo(10);
  }
}
