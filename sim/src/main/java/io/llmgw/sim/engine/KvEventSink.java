package io.llmgw.sim.engine;

/**
 * Where the engine's KV-cache changes go, as vLLM reports them with {@code --kv-events-config}: blocks stored (full
 * blocks of a prompt, chained to their parent), blocks removed (evicted), everything cleared; a step's events are one
 * batch. Called on the engine's thread.
 */
public interface KvEventSink {
  KvEventSink NONE = new KvEventSink() {
    @Override
    public void stored(long[] chain, int from, int to, int[] tokens, int blockSize, String adapter) {}

    @Override
    public void removed(long hash) {}

    @Override
    public void cleared() {}

    @Override
    public void endOfStep() {}
  };

  /**
   * Blocks {@code chain[from..to)} of a prompt were cached: they hold {@code tokens[from × blockSize .. to ×
   * blockSize)}, and the first one's parent is {@code chain[from - 1]} (none when {@code from} is 0).
   */
  void stored(long[] chain, int from, int to, int[] tokens, int blockSize, String adapter);

  void removed(long hash);

  void cleared();

  /** The step's events are complete: publish them as one batch (nothing when there were none). */
  void endOfStep();
}
