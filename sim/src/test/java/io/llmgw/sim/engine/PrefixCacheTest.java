package io.llmgw.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulated prefix cache reports its blocks as vLLM's do: never more held than it has room for. */
class PrefixCacheTest {
  @Test
  void aFullCacheReportsTheEvictionBeforeTheBlockThatTakesItsPlace() {
    List<String> events = new ArrayList<>();
    Set<Long> held = new HashSet<>();
    int[] mostHeld = {0};
    KvEventSink sink = new KvEventSink() {
      @Override
      public void stored(long[] chain, int from, int to, int[] tokens, int blockSize, String adapter) {
        for (int i = from; i < to; i++) {
          events.add("stored " + chain[i]);
          held.add(chain[i]);
        }
        mostHeld[0] = Math.max(mostHeld[0], held.size());
      }

      @Override
      public void removed(long hash) {
        events.add("removed " + hash);
        held.remove(hash);
      }

      @Override
      public void cleared() {
        held.clear();
      }

      @Override
      public void endOfStep() {
      }
    };
    PrefixCache cache = new PrefixCache(4, sink);
    int[] tokens = new int[16];
    assertThat(cache.matchAndInsert(new long[] {1, 2, 3, 4}, tokens, 4, null)).isZero();
    assertThat(cache.matchAndInsert(new long[] {1, 2, 5, 6}, tokens, 4, null)).isEqualTo(2);
    assertThat(events.subList(4, events.size())).containsExactly("removed 3", "stored 5", "removed 4", "stored 6");
    assertThat(mostHeld[0]).as("an index following the events never sees more than the cache's 4 blocks")
        .isEqualTo(4);
  }
}
