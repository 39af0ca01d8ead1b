package io.llmgw.scraper.kvevents;

import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.BlockKeys;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.EngineBlockIndex.Loss;
import java.time.Duration;
import java.util.Set;

/**
 * A subscriber in a JVM of its own, for {@link FloodAtSmallHeapTest}: follows one pod and prints what it counted every
 * 100 ms until its standard input closes. Arguments: pod address, event port, budget bytes, bytes a second per pod.
 */
public final class FloodedSubscriber {
  private FloodedSubscriber() {}

  public static void main(String[] args) throws Exception {
    EngineBlockIndex index = new EngineBlockIndex(EngineBlockIndex.DEFAULT_MAX_BLOCKS_PER_POD,
        EngineBlockIndex.DEFAULT_MAX_BLOCKS, 1_000_000_000L, Ticker.system());
    KvEventSettings settings = new KvEventSettings(Integer.parseInt(args[1]), 0, "", Duration.ofSeconds(1))
        .withLimits(KvEventSettings.DEFAULT_MAX_MESSAGE_BYTES, Long.parseLong(args[2]), Long.parseLong(args[3]));
    try (KvEventSubscriber subscriber = new KvEventSubscriber(settings, index).start()) {
      subscriber.pods(Set.of(args[0]));
      Thread watcher = Thread.ofPlatform().daemon().start(() -> {
        try {
          System.in.transferTo(java.io.OutputStream.nullOutputStream());
        } catch (java.io.IOException ignored) {
          // the parent is gone: stop as when it closes the stream
        }
      });
      while (watcher.isAlive()) {
        EngineBlockIndex.View v = index.view(args[0]);
        int matched = v == null ? -1 : v.matched(BlockKeys.chain(HostilePodIntakeTest.TOKENS, 4, null, 100));
        System.out.println("batches=" + subscriber.stats().batches() + " flood=" + subscriber.stats().losses(Loss.FLOOD)
            + " matched=" + matched + " heap=" + (Runtime.getRuntime().totalMemory()
                - Runtime.getRuntime().freeMemory()));
        watcher.join(100);
      }
    }
  }
}
