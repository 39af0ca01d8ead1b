package io.llmgw.picker.kvcache;

/**
 * One pod's blocks as a replica's index holds them, as of batch {@code lastSeq} of the pod's event stream: what a
 * replica that starts takes from a peer (issue 51), so that it knows the blocks stored before it subscribed and asks
 * the pod to replay only the batches after {@code lastSeq}.
 *
 * @param engineIds the engine's block ids (per medium), each with the gateway's key at the same place in {@code keys}
 */
public record PodSnapshot(String pod, long lastSeq, int blockSize, boolean offloads, long[] engineIds, long[] keys) {
  public PodSnapshot {
    if (engineIds.length != keys.length || lastSeq < 0 || blockSize < 1) {
      throw new IllegalArgumentException("a pod snapshot needs a key per block id, a batch number and a block size");
    }
  }

  public int blocks() {
    return engineIds.length;
  }
}
