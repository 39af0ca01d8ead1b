package io.llmgw.picker.kvcache;

import com.carrotsearch.hppc.cursors.LongLongCursor;
import io.llmgw.picker.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import net.openhft.hashing.LongHashFunction;

/**
 * What every pod's prefix cache holds, from the engines' own KV-cache events (vLLM's {@code BlockStored},
 * {@code BlockRemoved}, {@code AllBlocksCleared}), keyed by {@link BlockKeys} so that requests find their blocks by
 * token ids. Every EPP replica subscribed to the same pods builds the same index.
 *
 * <p>A pod's entry is trusted only while its stream is whole: after a loss (a gap replay could not fill, garbage, the
 * cap) its blocks are dropped and it stays distrusted for {@code relearnNanos}, during which scorers fall back to
 * their approximate view of that pod. Memory is capped per pod and over all pods; a pod whose blocks would pass either
 * cap is dropped the same way.
 */
public final class EngineBlockIndex {
  /** A 70B model's KV cache on eight 80 GB GPUs with host-memory offload holds well under this. */
  public static final int DEFAULT_MAX_BLOCKS_PER_POD = 1 << 20;
  /** About 160 MB of index. */
  public static final long DEFAULT_MAX_BLOCKS = 4L << 20;
  public static final long DEFAULT_RELEARN_NANOS = 30_000_000_000L;

  /**
   * Why a pod's blocks were dropped: a gap replay could not fill, garbage, the index's caps, more blocks than the pod
   * says its KV cache has, more bytes than its share, or a connection that broke (or was dropped for a message over the
   * size limit).
   */
  public enum Loss { GAP, GARBAGE, OVER_CAP, OVER_CAPACITY, FLOOD, DISCONNECTED }

  /** What a scorer reads of one trusted pod. */
  public interface View {
    int blockSize();

    /** How many of {@code keys}, in order from the first, the pod holds. */
    int matched(long[] keys);
  }

  private final ConcurrentHashMap<String, PodBlocks> pods = new ConcurrentHashMap<>();
  private final int maxBlocksPerPod;
  private final long maxBlocks;
  private final AtomicLong total = new AtomicLong();
  private final long relearnNanos;
  private final Ticker ticker;
  private final LongAdder orphans = new LongAdder();

  public EngineBlockIndex(int maxBlocksPerPod, long maxBlocks, long relearnNanos, Ticker ticker) {
    this.maxBlocksPerPod = maxBlocksPerPod;
    this.maxBlocks = maxBlocks;
    this.relearnNanos = relearnNanos;
    this.ticker = ticker;
  }

  public EngineBlockIndex() {
    this(DEFAULT_MAX_BLOCKS_PER_POD, DEFAULT_MAX_BLOCKS, DEFAULT_RELEARN_NANOS, Ticker.system());
  }

  /** The pod's blocks when its stream is trusted, else null (no events, or relearning after a loss). */
  public View view(String pod) {
    PodBlocks p = pods.get(pod);
    if (p == null) {
      return null;
    }
    synchronized (p) {
      if (!p.live || p.blockSize == 0 || ticker.nanos() - p.distrustedUntilNanos < 0) {
        return null;
      }
    }
    return p;
  }

  /** Whether the pod's events were lost and its blocks are being relearnt (distrusted), as of now. */
  public boolean relearning(String pod) {
    PodBlocks p = pods.get(pod);
    if (p == null) {
      return false;
    }
    synchronized (p) {
      return ticker.nanos() - p.distrustedUntilNanos < 0;
    }
  }

  /**
   * Blocks stored on the pod: {@code engineHashes} in order, holding {@code tokenIds} ({@code blockSize} each), the
   * first one's parent being {@code parentHash} when {@code hasParent}. Blocks whose parent the index never saw cannot
   * be keyed and are skipped (counted). Answers the loss it caused, or null.
   */
  public Loss stored(String pod, long[] engineHashes, boolean hasParent, long parentHash, int[] tokenIds,
      int blockSize, String adapter, String medium) {
    PodBlocks p = pod(pod);
    synchronized (p) {
      p.live = true;
      if (medium != null && !medium.equals("GPU")) {
        p.offloads = true;
      }
      if (p.blockSize != blockSize) {
        clear(p); // a different block size means a different engine configuration: nothing before it matches
        p.blockSize = blockSize;
      }
      long key;
      if (!hasParent) {
        key = BlockKeys.root(adapter);
      } else {
        long parent = engineId(parentHash, medium);
        int at = p.engineToKey.indexOf(parent);
        if (at < 0 && medium != null) {
          at = p.engineToKey.indexOf(engineId(parentHash, null));
        }
        if (at < 0) {
          orphans.add(engineHashes.length);
          return null;
        }
        key = p.engineToKey.indexGet(at);
      }
      int blocks = Math.min(engineHashes.length, tokenIds.length / blockSize);
      int before = p.size();
      for (int i = 0; i < blocks; i++) {
        key = BlockKeys.next(key, tokenIds, i * blockSize, blockSize);
        p.add(engineId(engineHashes[i], medium), key);
      }
      long now = total.addAndGet(p.size() - before);
      if (p.size() > maxBlocksPerPod || now > maxBlocks) {
        lose(p);
        return Loss.OVER_CAP;
      }
      if (p.capacity > 0 && !p.offloads && p.size() > p.capacity) {
        lose(p); // the engine evicts (BlockRemoved) before it stores past its cache: these blocks are not all there
        return Loss.OVER_CAPACITY;
      }
      return null;
    }
  }

  public void removed(String pod, long[] engineHashes, String medium) {
    PodBlocks p = pod(pod);
    synchronized (p) {
      p.live = true;
      int before = p.size();
      for (long h : engineHashes) {
        p.remove(engineId(h, medium));
      }
      total.addAndGet(p.size() - before);
    }
  }

  /**
   * How many blocks the pod's KV cache holds, as it reports ({@code num_gpu_blocks} in vLLM's
   * {@code vllm:cache_config_info}); 0 for unknown. A pod that then claims more GPU blocks than that is not believed.
   * A pod that offloads to other media (a medium other than GPU in its events) is held to the index's caps only.
   */
  public void capacity(String pod, long blocks) {
    PodBlocks p = pod(pod);
    synchronized (p) {
      p.capacity = Math.max(0, blocks);
    }
  }

  /** The engine dropped every block ({@code AllBlocksCleared}): its cache is empty, which the index now knows. */
  public void cleared(String pod) {
    PodBlocks p = pod(pod);
    synchronized (p) {
      clear(p);
      p.live = true;
    }
  }

  /** What the index held of the pod can no longer be trusted: dropped, and distrusted while it relearns. */
  public void lost(String pod) {
    PodBlocks p = pod(pod);
    synchronized (p) {
      lose(p);
    }
  }

  private void lose(PodBlocks p) {
    clear(p);
    p.live = false;
    p.distrustedUntilNanos = ticker.nanos() + relearnNanos;
  }

  private void clear(PodBlocks p) {
    total.addAndGet(-p.size());
    p.clear();
  }

  /** Batch {@code seq} of the pod's stream is applied whole: a snapshot of the pod is as of it. */
  public void applied(String pod, long seq) {
    PodBlocks p = pods.get(pod);
    if (p != null) {
      synchronized (p) {
        p.lastSeq = seq;
      }
    }
  }

  /**
   * Every trusted pod's blocks with the batch they are as of, for a peer that starts (issue 51); pods past
   * {@code maxBlocks} in all are left out (the peer learns them from the pod's replay buffer).
   */
  public List<PodSnapshot> export(long maxBlocks) {
    List<PodSnapshot> out = new ArrayList<>();
    long left = maxBlocks;
    for (Map.Entry<String, PodBlocks> e : pods.entrySet()) {
      PodBlocks p = e.getValue();
      synchronized (p) {
        if (!p.live || p.lastSeq < 0 || p.blockSize == 0 || ticker.nanos() - p.distrustedUntilNanos < 0
            || p.size() > left) {
          continue;
        }
        long[] ids = new long[p.size()];
        long[] keys = new long[p.size()];
        int i = 0;
        for (LongLongCursor c : p.engineToKey) {
          ids[i] = c.key;
          keys[i++] = c.value;
        }
        out.add(new PodSnapshot(e.getKey(), p.lastSeq, p.blockSize, p.offloads, ids, keys));
        left -= ids.length;
      }
    }
    return out;
  }

  /**
   * A peer's snapshot of a pod this index has not heard from yet: its blocks are taken, trusted as the peer trusted
   * them, and the pod's stream is to go on from the batch after {@link #takeSeededSeq}: a gap replay cannot fill drops them
   * as any gap does. False, taking nothing, when the index already follows the pod or the caps would be passed.
   */
  public boolean seed(PodSnapshot s) {
    PodBlocks p = pod(s.pod());
    synchronized (p) {
      if (p.live || p.size() > 0 || s.blocks() > maxBlocksPerPod || total.get() + s.blocks() > maxBlocks) {
        return false;
      }
      p.blockSize = s.blockSize();
      p.offloads = s.offloads();
      for (int i = 0; i < s.blocks(); i++) {
        p.add(s.engineIds()[i], s.keys()[i]);
      }
      total.addAndGet(p.size());
      p.lastSeq = s.lastSeq();
      p.live = true;
      p.seeded = true;
      return true;
    }
  }

  /**
   * The batch a seeded pod's blocks are as of, where the stream that follows the pod next goes on from; asked once (a
   * later stream of the same pod starts afresh); -1 for a pod not seeded.
   */
  public long takeSeededSeq(String pod) {
    PodBlocks p = pods.get(pod);
    if (p == null) {
      return -1;
    }
    synchronized (p) {
      boolean seeded = p.seeded && p.live;
      p.seeded = false;
      return seeded ? p.lastSeq : -1;
    }
  }

  /** Pods that left: their blocks go. */
  public void retainOnly(Set<String> addresses) {
    for (String pod : pods.keySet()) {
      if (!addresses.contains(pod)) {
        forget(pod);
      }
    }
  }

  public void forget(String pod) {
    PodBlocks p = pods.remove(pod);
    if (p != null) {
      synchronized (p) {
        clear(p);
      }
    }
  }

  /**
   * Drops every pod but those in {@code keep}: one that left the pool, or one a peer seeded ({@link #seed}) that this
   * replica does not follow (a peer is trusted with the blocks of the pool's pods, not with any pod it names).
   */
  public void retain(Set<String> keep) {
    for (String pod : List.copyOf(pods.keySet())) {
      if (!keep.contains(pod)) {
        forget(pod);
      }
    }
  }

  /** Blocks held over all pods (each engine block once). */
  public long blocks() {
    return total.get();
  }

  /** Stored blocks skipped because their parent was never seen (the stream began after it, or lost it). */
  public long orphanBlocks() {
    return orphans.sum();
  }

  /** What the caps are, for the log line that names them. */
  public String caps() {
    return maxBlocksPerPod + " blocks per pod, " + maxBlocks + " in all";
  }

  private PodBlocks pod(String pod) {
    return pods.computeIfAbsent(pod, a -> new PodBlocks());
  }

  /** The engine's block id: its hash, told apart per medium (GPU is the hash itself). */
  private static long engineId(long hash, String medium) {
    return medium == null || medium.equals("GPU") ? hash : LongHashFunction.xx(hash).hashChars(medium);
  }
}
