package io.llmgw.sim.engine;

import java.util.List;

/**
 * Everything that shapes one simulated model server. Latencies are in milliseconds; the serving model is vLLM's
 * continuous batching: a step emits one token for every running sequence and takes {@code decodeBaseMs +
 * decodePerSeqMs × running}, plus {@code prefillOverheadMs + prefillPerTokenMs × uncached prompt tokens} for the
 * sequences admitted in that step, plus the cost of bringing their adapters onto the GPU.
 *
 * @param maxNumSeqs running slots (vLLM {@code --max-num-seqs})
 * @param maxWaiting waiting-queue capacity; a full queue answers 429
 * @param maxLoras adapters in one batch (vLLM {@code --max-loras})
 * @param maxCpuLoras adapters kept in host memory (vLLM {@code --max-cpu-loras}); the rest are re-read from disk
 * @param numGpuBlocks KV-cache budget in blocks of {@code blockSize} tokens
 * @param loraLoadMs reading an adapter from disk: the load API's latency, and the cost of using an evicted adapter
 * @param loraSwapMs moving an adapter from host memory into a GPU slot
 * @param meanOutputTokens output length when the request sets no {@code max_tokens} (uniform in 1..2×mean−1)
 * @param failureRate share of requests answered 500 at random
 * @param seed makes output text, output lengths and injected failures repeatable
 */
public record SimConfig(
    String model,
    int maxNumSeqs,
    int maxWaiting,
    int maxLoras,
    int maxCpuLoras,
    int numGpuBlocks,
    int blockSize,
    int maxModelLen,
    double prefillOverheadMs,
    double prefillPerTokenMs,
    double decodeBaseMs,
    double decodePerSeqMs,
    double loraLoadMs,
    double loraSwapMs,
    int meanOutputTokens,
    double failureRate,
    long seed,
    List<String> adapters) {

  public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

  public SimConfig {
    adapters = List.copyOf(adapters);
    require(!model.isBlank(), "--model must not be empty");
    require(maxNumSeqs >= 1, "--max-num-seqs must be at least 1");
    require(maxWaiting >= 1, "--max-waiting must be at least 1");
    require(maxLoras >= 1, "--max-loras must be at least 1");
    require(maxCpuLoras >= maxLoras, "--max-cpu-loras must be at least --max-loras (vLLM's rule)");
    require(numGpuBlocks >= 1 && blockSize >= 1, "--num-gpu-blocks and --block-size must be at least 1");
    require(maxModelLen >= 2, "--max-model-len must be at least 2");
    require(prefillOverheadMs >= 0 && prefillPerTokenMs >= 0 && decodeBaseMs > 0 && decodePerSeqMs >= 0
        && loraLoadMs >= 0 && loraSwapMs >= 0, "latencies must not be negative (decode base must be positive)");
    require(meanOutputTokens >= 1, "--mean-output-tokens must be at least 1");
    require(failureRate >= 0 && failureRate <= 1, "--failure-rate must be within 0..1");
  }

  /** vLLM's own defaults where it has one (max-loras 1, block size 16), a small fast pool otherwise. */
  public static SimConfig defaults() {
    return new SimConfig(DEFAULT_MODEL, 64, 1024, 1, 1, 4096, 16, 8192, 10, 0.1, 10, 0.3, 200, 20, 64, 0, 0,
        List.of());
  }

  public SimConfig withAdapters(List<String> names) {
    return new SimConfig(model, maxNumSeqs, maxWaiting, maxLoras, maxCpuLoras, numGpuBlocks, blockSize, maxModelLen,
        prefillOverheadMs, prefillPerTokenMs, decodeBaseMs, decodePerSeqMs, loraLoadMs, loraSwapMs, meanOutputTokens,
        failureRate, seed, names);
  }

  public SimConfig withLoras(int loras, int cpuLoras) {
    return new SimConfig(model, maxNumSeqs, maxWaiting, loras, cpuLoras, numGpuBlocks, blockSize, maxModelLen,
        prefillOverheadMs, prefillPerTokenMs, decodeBaseMs, decodePerSeqMs, loraLoadMs, loraSwapMs, meanOutputTokens,
        failureRate, seed, adapters);
  }

  public SimConfig withCapacity(int seqs, int waiting, int gpuBlocks) {
    return new SimConfig(model, seqs, waiting, maxLoras, maxCpuLoras, gpuBlocks, blockSize, maxModelLen,
        prefillOverheadMs, prefillPerTokenMs, decodeBaseMs, decodePerSeqMs, loraLoadMs, loraSwapMs, meanOutputTokens,
        failureRate, seed, adapters);
  }

  public SimConfig withSeed(long s) {
    return new SimConfig(model, maxNumSeqs, maxWaiting, maxLoras, maxCpuLoras, numGpuBlocks, blockSize, maxModelLen,
        prefillOverheadMs, prefillPerTokenMs, decodeBaseMs, decodePerSeqMs, loraLoadMs, loraSwapMs, meanOutputTokens,
        failureRate, s, adapters);
  }

  public int blocksFor(int tokens) {
    return (tokens + blockSize - 1) / blockSize;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
