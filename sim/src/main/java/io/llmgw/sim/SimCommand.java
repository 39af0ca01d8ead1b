package io.llmgw.sim;

import io.llmgw.chattemplate.ChatTokenizer;
import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.engine.SimProfile;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import io.llmgw.sim.kvpublish.VllmKvEventsConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "sim", mixinStandardHelpOptions = true,
    description = "Run simulated vLLM servers (OpenAI API, SSE, vLLM metrics, runtime LoRA loading) on loopback.")
public final class SimCommand implements Callable<Integer> {
  @Option(names = "--pods", defaultValue = "1",
      description = "Number of simulated servers (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(names = "--first-ip", defaultValue = "127.0.0.11",
      description = "Address of the first server; the next ones count up (default: ${DEFAULT-VALUE}).")
  String firstIp;

  @Option(names = "--port", defaultValue = "8000",
      description = "Port every server listens on (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--model", description = "Base model name (default: " + SimConfig.DEFAULT_MODEL + ", or the "
      + "profile's).")
  String model;

  @Option(names = "--profile", description = "Measured step costs of a published configuration: "
      + "llama-3.1-8b-h100, qwen2.5-72b-tp4-h100, or a properties file of the same keys (sim/README.md); flags given "
      + "here override it (default: the small fast pool of the flags' defaults).")
  String profile;

  @Option(names = "--lora-rank", defaultValue = "16", description = "Rank of the adapters, with --profile: the "
      + "profile's swap and load costs (for rank 16) scale with it (default: ${DEFAULT-VALUE}).")
  int loraRank;

  @Option(names = "--role", defaultValue = "both", description = "Part in disaggregated serving, as llm-d's "
      + "llm-d.ai/role label names it: both (default), prefill, or decode; a decode or both pod asked with "
      + "x-prefiller-host-port has that pod compute the prompt and pulls its KV cache.")
  String role;

  @Option(names = "--max-num-batched-tokens", description = "Tokens one step may process, vLLM's chunked prefill "
      + "budget; 0: no limit (default: 0, or the profile's).")
  Integer maxNumBatchedTokens;

  @Option(names = "--async-scheduling", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "vLLM's async scheduling, on by default as in vLLM: a request arriving during a step joins the "
          + "step after the next (--no-async-scheduling: the next).")
  boolean asyncScheduling;

  @Option(names = "--adapters", split = ",", description = "Adapters registered at start (comma-separated).")
  List<String> adapters = List.of();

  @Option(names = "--max-num-seqs", description = "Running slots (default: 64, or the profile's).")
  Integer maxNumSeqs;

  @Option(names = "--max-waiting", defaultValue = "1024",
      description = "Waiting-queue capacity; a full queue answers 429 (default: ${DEFAULT-VALUE}).")
  int maxWaiting;

  @Option(names = "--max-loras", defaultValue = "1", description = "Adapters per batch (default: ${DEFAULT-VALUE}).")
  int maxLoras;

  @Option(names = "--max-cpu-loras", description = "Adapters kept in host memory (default: --max-loras).")
  Integer maxCpuLoras;

  @Option(names = "--num-gpu-blocks", description = "KV-cache blocks of 16 tokens (default: 4096, or the profile's).")
  Integer gpuBlocks;

  @Option(names = "--max-model-len", defaultValue = "8192", description = "Prompt + output limit in tokens.")
  int maxModelLen;

  @Option(names = "--prefill-overhead-ms",
      description = "Fixed time of a step that prefills (default: 10, or the profile's).")
  Double prefillOverheadMs;

  @Option(names = "--prefill-per-token-ms",
      description = "Prefill time per prompt token not in the prefix cache (default: 0.1, or the profile's).")
  Double prefillPerTokenMs;

  @Option(names = "--decode-base-ms", description = "Step time of a batch of one (default: 10, or the profile's).")
  Double decodeBaseMs;

  @Option(names = "--decode-per-seq-ms",
      description = "Added step time per running sequence (default: 0.3, or the profile's).")
  Double decodePerSeqMs;

  @Option(names = "--lora-load-ms", description = "Reading an adapter from disk (default: 200, or the profile's).")
  Double loraLoadMs;

  @Option(names = "--lora-swap-ms",
      description = "Moving an adapter from host memory to GPU (default: 20, or the profile's).")
  Double loraSwapMs;

  @Option(names = "--mean-output-tokens", defaultValue = "64",
      description = "Output length when a request sets no max_tokens (default: ${DEFAULT-VALUE}).")
  int meanOutputTokens;

  @Option(names = "--failure-rate", defaultValue = "0", description = "Share of requests answered 500 (0..1).")
  double failureRate;

  @Option(names = "--seed", defaultValue = "42", description = "Seed for text, lengths and failures.")
  long seed;

  @Option(names = "--scheduling-policy", defaultValue = "fcfs",
      description = "fcfs, or priority: vLLM's, by the body's `priority` (lower first), preempting lower priorities "
          + "(default: ${DEFAULT-VALUE}).")
  String schedulingPolicy;

  @Option(names = "--runtime-port", defaultValue = "0",
      description = "Also serve the ModelMesh runtime SPI (mmesh.ModelRuntime gRPC) on this port (default: off).")
  int runtimePort;

  @Option(names = "--kv-events-config", description = "vLLM's KV-cache event publishing, in vLLM's JSON, e.g. "
      + "'{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\","
      + "\"replay_endpoint\":\"tcp://*:5558\",\"topic\":\"kv-events\"}' (each pod binds on its own address; "
      + "default: off).")
  String kvEventsConfig;

  @Option(names = "--proposed-metrics", description = "Also export series only proposed upstream, not in released "
      + "vLLM: vllm:lora_adapter_loaded{adapter_name,level} (default: off, /metrics as released vLLM publishes it).")
  boolean proposedMetrics;

  @Option(names = "--enable-auto-tool-choice", description = "vLLM's flag: serve tool_choice auto (the default when "
      + "a request has tools), answering with a tool call where a model would; without it such a request is a 400, "
      + "as vLLM answers it.")
  boolean enableAutoToolChoice;

  @Option(names = "--tokenizer", defaultValue = "sim", description = "The prompts' tokens: sim (the simulator's own, "
      + "4 characters each) or hf:DIR, a model's Hugging Face files (tokenizer.json, tokenizer_config.json) to render "
      + "and tokenize prompts as vLLM serving that model would (default: ${DEFAULT-VALUE}).")
  String tokenizer;

  @Option(names = "--enable-prompt-tokens-details", description = "vLLM's flag: chat and completion usage says how "
      + "many prompt tokens the prefix cache held (prompt_tokens_details.cached_tokens).")
  boolean enablePromptTokensDetails;

  public SimConfig config() {
    SimConfig.Builder b = SimConfig.builder();
    if (profile != null) {
      SimProfile.load(profile).applyTo(b, loraRank);
    }
    SimConfig base = b.build();
    if (model != null) {
      b.model(model);
    }
    b.adapters(adapters).loras(maxLoras, maxCpuLoras == null ? maxLoras : maxCpuLoras)
        .capacity(or(maxNumSeqs, base.maxNumSeqs()), maxWaiting, or(gpuBlocks, base.numGpuBlocks()))
        .maxModelLen(maxModelLen).maxNumBatchedTokens(or(maxNumBatchedTokens, base.maxNumBatchedTokens()))
        .prefill(or(prefillOverheadMs, base.prefillOverheadMs()), or(prefillPerTokenMs, base.prefillPerTokenMs()))
        .decode(or(decodeBaseMs, base.decodeBaseMs()), or(decodePerSeqMs, base.decodePerSeqMs()))
        .loraLatency(or(loraLoadMs, base.loraLoadMs()), or(loraSwapMs, base.loraSwapMs()))
        .asyncScheduling(asyncScheduling).role(role(role)).meanOutputTokens(meanOutputTokens).failureRate(failureRate)
        .seed(seed)
        .runtimePort(runtimePort).priorityScheduling(schedulingPolicy.equals("priority"))
        .kvEvents(kvEventsConfig == null ? KvEventsConfig.OFF : VllmKvEventsConfig.parse(kvEventsConfig))
        .proposedMetrics(proposedMetrics).autoToolChoice(enableAutoToolChoice)
        .promptTokensDetails(enablePromptTokensDetails);
    return b.build();
  }

  private static SimConfig.Role role(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "both" -> SimConfig.Role.BOTH;
      case "prefill" -> SimConfig.Role.PREFILL;
      case "decode" -> SimConfig.Role.DECODE;
      default -> throw new IllegalArgumentException("--role must be both, prefill or decode, not '" + value + "'");
    };
  }

  private static <T> T or(T given, T otherwise) {
    return given != null ? given : otherwise;
  }

  /**
   * The model whose files {@code --tokenizer hf:DIR} names, or null for the simulator's tokens.
   *
   * @throws IllegalArgumentException naming the files, or the value, when they cannot be used
   */
  public static ChatTokenizer model(String tokenizer) {
    if (tokenizer.equals("sim")) {
      return null;
    }
    if (!tokenizer.startsWith("hf:")) {
      throw new IllegalArgumentException("--tokenizer must be sim or hf:DIR, not '" + tokenizer + "'");
    }
    return ChatTokenizer.open(Path.of(tokenizer.substring(3)));
  }

  @Override
  public Integer call() throws Exception {
    SimConfig config;
    try {
      if (!schedulingPolicy.equals("fcfs") && !schedulingPolicy.equals("priority")) {
        throw new IllegalArgumentException("--scheduling-policy must be fcfs or priority");
      }
      config = config();
    } catch (IllegalArgumentException e) {
      System.err.println("llmgw sim: " + e.getMessage());
      return 2;
    }
    SimPods running;
    try {
      running = SimPods.start(config, pods, firstIp, port, model(tokenizer));
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("llmgw sim: " + e.getMessage());
      return e instanceof IllegalArgumentException ? 2 : 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        running.close();
      } catch (Exception ignored) {
        // exiting anyway
      } finally {
        stopped.countDown();
      }
    }, "sim-shutdown"));
    System.out.println("llmgw sim: " + pods + " server(s) for " + config.model()
        + (profile == null ? "" : " (profile " + profile + ")") + " with adapters " + adapters + " at "
        + running.pods().stream().map(SimServer::address).toList());
    stopped.await();
    return 0;
  }
}
