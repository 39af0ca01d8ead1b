package io.llmgw.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BeladyTest {
  @Test
  void evictsWhatIsNeededFurthestAhead() {
    // capacity 2: a b c a b -> a,b miss; c misses and evicts b (next used after a); a hits; b misses: 4 misses
    assertThat(Belady.misses(List.of("a", "b", "c", "a", "b"), 2)).isEqualTo(4);
    // LRU would miss all 7 here; MIN keeps a and misses 5
    assertThat(Belady.misses(List.of("a", "b", "c", "a", "b", "c", "a"), 2)).isEqualTo(5);
    assertThat(Belady.misses(List.of("a", "a", "a"), 1)).isEqualTo(1);
    assertThat(Belady.misses(List.of("a", "b", "c"), 10)).as("first uses always miss").isEqualTo(3);
  }
}
