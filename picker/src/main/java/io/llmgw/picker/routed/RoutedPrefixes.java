package io.llmgw.picker.routed;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where this replica's prompts went, one {@link RoutedIndex} per block size and capacity, and what several replicas
 * tell each other of it (issue 29). Without peers it is each approximate prefix scorer's index and nothing more. With
 * peers ({@link #keep}), every block an index had not seen at a pod goes into a bounded outbox, which the next
 * exchange message takes, and into a ring of the most recent ones, which a peer that starts watching gets first: a
 * replica that starts or restarts learns where its peers sent the prompts of the last minutes, and what it routed
 * before its peers listened is not lost to them. The peers' blocks are learned into every index of their block size,
 * so a prompt one replica routed is known to all within a tick. A full outbox drops what does not fit (counted): the
 * index is a guess, and a lost block costs one prefix hit somewhere, never a request.
 */
public final class RoutedPrefixes {
  /**
   * 256 KiB of hashes and 2,048 prompts a tick: at the exchange's 25 ms, 80,000 prompts a second, each 16 blocks new; far
   * above what a replica routes, and what one message carries. The ring of recent blocks has the same bounds.
   */
  public static final int MAX_OUTBOX_BLOCKS = 32_768;
  public static final int MAX_OUTBOX_PICKS = 2_048;

  private final List<RoutedIndex> indexes = new CopyOnWriteArrayList<>();
  private final int maxBlocks;
  private volatile boolean keeping;
  private List<RoutedBlocks> outbox = new ArrayList<>();
  private int outboxBlocks;
  private final ArrayDeque<RoutedBlocks> recent = new ArrayDeque<>();
  private int recentBlocks;
  private final AtomicLong shared = new AtomicLong();
  private final AtomicLong learned = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();

  private final long hashSeed;

  public RoutedPrefixes() {
    this(MAX_OUTBOX_BLOCKS, 0);
  }

  /**
   * @param hashSeed what every replica of a deployment seeds its prompt-block hashes with (from the peers' shared
   *     secret): the hashes replicas send each other then confirm nothing about a guessed prompt to anyone without it
   */
  public RoutedPrefixes(long hashSeed) {
    this(MAX_OUTBOX_BLOCKS, hashSeed);
  }

  RoutedPrefixes(int maxBlocks) {
    this(maxBlocks, 0);
  }

  private RoutedPrefixes(int maxBlocks, long hashSeed) {
    this.maxBlocks = maxBlocks;
    this.hashSeed = hashSeed;
  }

  /** The seed the prefix scorers' block hashes start from. */
  public long hashSeed() {
    return hashSeed;
  }

  /** The index of prompts cut in blocks of this size, kept to this many blocks per endpoint: shared by scorers alike. */
  public synchronized RoutedIndex index(int blockBytes, int capacityPerEndpoint) {
    for (RoutedIndex i : indexes) {
      if (i.blockBytes() == blockBytes && i.capacityPerEndpoint() == capacityPerEndpoint) {
        return i;
      }
    }
    RoutedIndex i = new RoutedIndex(blockBytes, capacityPerEndpoint, this);
    indexes.add(i);
    return i;
  }

  /** Whether this replica has peers to tell: while not, nothing is collected. */
  public void keep(boolean on) {
    keeping = on;
  }

  boolean keeping() {
    return keeping;
  }

  synchronized void routed(RoutedBlocks blocks) {
    int n = blocks.blocks().length;
    if (outboxBlocks + n > maxBlocks || outbox.size() == MAX_OUTBOX_PICKS) {
      dropped.addAndGet(n);
    } else {
      outbox.add(blocks);
      outboxBlocks += n;
    }
    if (n <= maxBlocks) {
      recent.addLast(blocks);
      recentBlocks += n;
      while (recentBlocks > maxBlocks || recent.size() > MAX_OUTBOX_PICKS) {
        recentBlocks -= recent.removeFirst().blocks().length;
      }
    }
  }

  /** What this replica routed since the last call, for its peers. */
  public List<RoutedBlocks> drain() {
    List<RoutedBlocks> out;
    synchronized (this) {
      if (outbox.isEmpty()) {
        return List.of();
      }
      out = outbox;
      outbox = new ArrayList<>();
      shared.addAndGet(outboxBlocks);
      outboxBlocks = 0;
    }
    return out;
  }

  /** Forgets what waits for the next message: nobody watches this replica now. */
  public synchronized void discardOutbox() {
    outbox.clear();
    outboxBlocks = 0;
  }

  /** The most recent blocks this replica routed, oldest first: what a peer that starts watching gets first. */
  public synchronized List<RoutedBlocks> recent() {
    return List.copyOf(recent);
  }

  /** What a peer routed: into every index of its block size, for the pool's endpoints only. */
  public void learn(List<RoutedBlocks> fromPeer) {
    for (RoutedBlocks r : fromPeer) {
      for (RoutedIndex i : indexes) {
        if (i.blockBytes() == r.blockBytes()) {
          i.learn(r.address(), r.blocks());
        }
      }
      learned.addAndGet(r.blocks().length);
    }
  }

  /** Blocks handed to the peers, heard from them, and dropped from a full outbox, since start. */
  public long sharedBlocks() {
    return shared.get();
  }

  public long learnedBlocks() {
    return learned.get();
  }

  public long droppedBlocks() {
    return dropped.get();
  }
}
