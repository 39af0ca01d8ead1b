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
 * @param decodePerKvTokenUs added step time per token of context held by the decoding sequences (reading their KV
 *     cache), in microseconds
 * @param maxNumBatchedTokens vLLM's {@code --max-num-batched-tokens}: tokens one step may process (one per decoding
 *     sequence, the rest prefill chunks, so a long prompt is prefilled over several steps); 0: no limit, a prompt is
 *     prefilled in the step that admits it
 * @param kvTransferPerTokenUs pulling one token's KV cache from a prefill pod (disaggregated serving), in microseconds
 * @param apiOverheadMs time a request spends outside the step loop (the API server's parsing and tokenization, the
 *     first token's way back out), added before it joins the waiting queue: it delays that request, not the batch
 * @param asyncScheduling vLLM's async scheduling (on by default since vllm-project/vllm#27614): the next step is
 *     scheduled while the current one runs, so a request that arrives during a step joins the step after the next;
 *     false: it joins the next one
 * @param role what the pod does in disaggregated serving (llm-d's {@code llm-d.ai/role}): a decode-capable pod (decode,
 *     both) asked with {@code x-prefiller-host-port} has the prefill pod named there compute the prompt and pulls its
 *     KV cache, as llm-d's sidecar and vLLM's NIXL connector do; any pod computes a prompt for a decode pod that asks
 * @param loraLoadMs reading an adapter from disk: the load API's latency, and the cost of using an evicted adapter
 * @param loraSwapMs moving an adapter from host memory into a GPU slot
 * @param meanOutputTokens output length when the request sets no {@code max_tokens} (uniform in 1..2×mean−1)
 * @param failureRate share of requests answered 500 at random
 * @param seed makes output text, output lengths and injected failures repeatable
 * @param runtimePort where each pod also serves the ModelMesh runtime SPI (gRPC) for adapter loads; 0: not served
 * @param priorityScheduling vLLM's {@code --scheduling-policy priority}: waiting requests go by their body's
 *     {@code priority} (lower first, default 0), and one that finds no room preempts running requests of a lower
 *     priority (they wait again and recompute their KV cache when readmitted); false: first come, first served
 * @param kvEvents where the pod publishes its KV-cache events (vLLM's {@code --kv-events-config}); {@code OFF} by default
 * @param autoToolChoice vLLM's {@code --enable-auto-tool-choice}: {@code tool_choice: auto} (and tools without a
 *     choice) is served, the simulator deciding to call a tool as a model with a tool parser would; without it, a 400
 * @param promptTokensDetails vLLM's {@code --enable-prompt-tokens-details}: chat and completion usage says how many
 *     prompt tokens the prefix cache held ({@code prompt_tokens_details.cached_tokens}, when any); the Responses API
 *     says it always, as vLLM's does
 * @param proposedMetrics also export series that are only proposed upstream, not in released vLLM
 *     ({@code vllm:lora_adapter_loaded}, an open vLLM pull request); off by default, so the simulator's {@code /metrics}
 *     is what a released vLLM publishes
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
    double decodePerKvTokenUs,
    int maxNumBatchedTokens,
    double kvTransferPerTokenUs,
    double apiOverheadMs,
    boolean asyncScheduling,
    Role role,
    double loraLoadMs,
    double loraSwapMs,
    int meanOutputTokens,
    double failureRate,
    long seed,
    List<String> adapters,
    int runtimePort,
    boolean priorityScheduling,
    KvEventsConfig kvEvents,
    boolean proposedMetrics,
    boolean autoToolChoice,
    boolean promptTokensDetails) {

  public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";

  /** A pod's part in disaggregated serving, as llm-d labels it. */
  public enum Role {
    BOTH, PREFILL, DECODE;

    /** Whether requests routed here are generated here (and so may name a prefill pod). */
    public boolean decodes() {
      return this != PREFILL;
    }
  }

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
    require(decodePerKvTokenUs >= 0 && kvTransferPerTokenUs >= 0 && apiOverheadMs >= 0,
        "latencies must not be negative");
    require(role != null, "--role must be both, prefill or decode");
    require(maxNumBatchedTokens >= 0, "--max-num-batched-tokens must not be negative (0: no limit)");
    require(meanOutputTokens >= 1, "--mean-output-tokens must be at least 1");
    require(failureRate >= 0 && failureRate <= 1, "--failure-rate must be within 0..1");
    require(runtimePort >= 0 && runtimePort <= 65535, "--runtime-port must be within 0..65535");
  }

  /** vLLM's own defaults where it has one (max-loras 1, block size 16), a small fast pool otherwise. */
  public static SimConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.model = model;
    b.maxNumSeqs = maxNumSeqs;
    b.maxWaiting = maxWaiting;
    b.maxLoras = maxLoras;
    b.maxCpuLoras = maxCpuLoras;
    b.numGpuBlocks = numGpuBlocks;
    b.blockSize = blockSize;
    b.maxModelLen = maxModelLen;
    b.prefillOverheadMs = prefillOverheadMs;
    b.prefillPerTokenMs = prefillPerTokenMs;
    b.decodeBaseMs = decodeBaseMs;
    b.decodePerSeqMs = decodePerSeqMs;
    b.decodePerKvTokenUs = decodePerKvTokenUs;
    b.maxNumBatchedTokens = maxNumBatchedTokens;
    b.kvTransferPerTokenUs = kvTransferPerTokenUs;
    b.apiOverheadMs = apiOverheadMs;
    b.asyncScheduling = asyncScheduling;
    b.role = role;
    b.loraLoadMs = loraLoadMs;
    b.loraSwapMs = loraSwapMs;
    b.meanOutputTokens = meanOutputTokens;
    b.failureRate = failureRate;
    b.seed = seed;
    b.adapters = adapters;
    b.runtimePort = runtimePort;
    b.priorityScheduling = priorityScheduling;
    b.kvEvents = kvEvents;
    b.proposedMetrics = proposedMetrics;
    b.autoToolChoice = autoToolChoice;
    b.promptTokensDetails = promptTokensDetails;
    return b;
  }

  /** Named settings instead of eighteen positional ones; {@link #build()} validates. */
  public static final class Builder {
    private String model = DEFAULT_MODEL;
    private int maxNumSeqs = 64;
    private int maxWaiting = 1024;
    private int maxLoras = 1;
    private int maxCpuLoras = 1;
    private int numGpuBlocks = 4096;
    private int blockSize = 16;
    private int maxModelLen = 8192;
    private double prefillOverheadMs = 10;
    private double prefillPerTokenMs = 0.1;
    private double decodeBaseMs = 10;
    private double decodePerSeqMs = 0.3;
    private double decodePerKvTokenUs;
    private int maxNumBatchedTokens;
    private double kvTransferPerTokenUs;
    private double apiOverheadMs;
    private boolean asyncScheduling = true;
    private Role role = Role.BOTH;
    private double loraLoadMs = 200;
    private double loraSwapMs = 20;
    private int meanOutputTokens = 64;
    private double failureRate;
    private long seed;
    private int runtimePort;
    private boolean priorityScheduling;
    private List<String> adapters = List.of();
    private KvEventsConfig kvEvents = KvEventsConfig.OFF;
    private boolean proposedMetrics;
    private boolean autoToolChoice;
    private boolean promptTokensDetails;

    /** vLLM's {@code --enable-prompt-tokens-details} (see {@link SimConfig#promptTokensDetails}). */
    public Builder promptTokensDetails(boolean on) {
      promptTokensDetails = on;
      return this;
    }

    private Builder() {}

    /** vLLM's {@code --enable-auto-tool-choice} (see {@link SimConfig#autoToolChoice}). */
    public Builder autoToolChoice(boolean on) {
      autoToolChoice = on;
      return this;
    }

    /** Also export series only proposed upstream (see {@link SimConfig#proposedMetrics}). */
    public Builder proposedMetrics(boolean on) {
      proposedMetrics = on;
      return this;
    }

    public Builder kvEvents(KvEventsConfig config) {
      kvEvents = config;
      return this;
    }

    public Builder model(String name) {
      model = name;
      return this;
    }

    public Builder adapters(List<String> names) {
      adapters = names;
      return this;
    }

    /** Adapters per batch, and in host memory. */
    public Builder loras(int perBatch, int inHostMemory) {
      maxLoras = perBatch;
      maxCpuLoras = inHostMemory;
      return this;
    }

    /** Running slots, waiting places, KV-cache blocks. */
    public Builder capacity(int seqs, int waitingPlaces, int gpuBlocks) {
      maxNumSeqs = seqs;
      maxWaiting = waitingPlaces;
      numGpuBlocks = gpuBlocks;
      return this;
    }

    public Builder maxModelLen(int tokens) {
      maxModelLen = tokens;
      return this;
    }

    public Builder prefill(double overheadMs, double perTokenMs) {
      prefillOverheadMs = overheadMs;
      prefillPerTokenMs = perTokenMs;
      return this;
    }

    public Builder decode(double baseMs, double perSeqMs) {
      decodeBaseMs = baseMs;
      decodePerSeqMs = perSeqMs;
      return this;
    }

    /** Step time per token of context the decoding sequences hold, in microseconds. */
    public Builder decodePerKvToken(double micros) {
      decodePerKvTokenUs = micros;
      return this;
    }

    /** vLLM's token budget per step (chunked prefill); 0: no limit. */
    public Builder maxNumBatchedTokens(int tokens) {
      maxNumBatchedTokens = tokens;
      return this;
    }

    /** Time a request spends outside the step loop before it queues (API server, tokenization, first token out). */
    public Builder apiOverhead(double ms) {
      apiOverheadMs = ms;
      return this;
    }

    /** vLLM's async scheduling (its default): a request arriving during a step joins the step after the next. */
    public Builder asyncScheduling(boolean on) {
      asyncScheduling = on;
      return this;
    }

    /** What the pod does in disaggregated serving. */
    public Builder role(Role value) {
      role = value;
      return this;
    }

    /** Pulling one token's KV cache from a prefill pod, in microseconds. */
    public Builder kvTransferPerToken(double micros) {
      kvTransferPerTokenUs = micros;
      return this;
    }

    /** Reading an adapter from disk, and moving one from host memory to a GPU slot. */
    public Builder loraLatency(double loadMs, double swapMs) {
      loraLoadMs = loadMs;
      loraSwapMs = swapMs;
      return this;
    }

    public Builder meanOutputTokens(int tokens) {
      meanOutputTokens = tokens;
      return this;
    }

    public Builder failureRate(double share) {
      failureRate = share;
      return this;
    }

    public Builder seed(long value) {
      seed = value;
      return this;
    }

    public SimConfig build() {
      return new SimConfig(model, maxNumSeqs, maxWaiting, maxLoras, maxCpuLoras, numGpuBlocks, blockSize, maxModelLen,
          prefillOverheadMs, prefillPerTokenMs, decodeBaseMs, decodePerSeqMs, decodePerKvTokenUs, maxNumBatchedTokens,
          kvTransferPerTokenUs, apiOverheadMs, asyncScheduling, role, loraLoadMs, loraSwapMs,
          meanOutputTokens, failureRate, seed, adapters, runtimePort, priorityScheduling, kvEvents, proposedMetrics,
          autoToolChoice, promptTokensDetails);
    }

    /** vLLM's {@code --scheduling-policy priority} instead of first come, first served. */
    public Builder priorityScheduling(boolean on) {
      priorityScheduling = on;
      return this;
    }

    /** Also serve the ModelMesh runtime SPI on this port of every pod (0: off). */
    public Builder runtimePort(int port) {
      runtimePort = port;
      return this;
    }
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
