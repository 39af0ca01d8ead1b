package io.llmgw.sim;

import io.llmgw.sim.engine.KvEventsConfig;
import io.llmgw.sim.engine.SimConfig;
import io.llmgw.sim.http.SimPods;
import io.llmgw.sim.http.SimServer;
import io.llmgw.sim.kvpublish.VllmKvEventsConfig;
import java.util.List;
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

  @Option(names = "--model", defaultValue = SimConfig.DEFAULT_MODEL, description = "Base model name.")
  String model;

  @Option(names = "--adapters", split = ",", description = "Adapters registered at start (comma-separated).")
  List<String> adapters = List.of();

  @Option(names = "--max-num-seqs", defaultValue = "64", description = "Running slots (default: ${DEFAULT-VALUE}).")
  int maxNumSeqs;

  @Option(names = "--max-waiting", defaultValue = "1024",
      description = "Waiting-queue capacity; a full queue answers 429 (default: ${DEFAULT-VALUE}).")
  int maxWaiting;

  @Option(names = "--max-loras", defaultValue = "1", description = "Adapters per batch (default: ${DEFAULT-VALUE}).")
  int maxLoras;

  @Option(names = "--max-cpu-loras", description = "Adapters kept in host memory (default: --max-loras).")
  Integer maxCpuLoras;

  @Option(names = "--num-gpu-blocks", defaultValue = "4096",
      description = "KV-cache blocks of 16 tokens (default: ${DEFAULT-VALUE}).")
  int gpuBlocks;

  @Option(names = "--max-model-len", defaultValue = "8192", description = "Prompt + output limit in tokens.")
  int maxModelLen;

  @Option(names = "--prefill-overhead-ms", defaultValue = "10",
      description = "Fixed time of a prefill step (default: ${DEFAULT-VALUE}).")
  double prefillOverheadMs;

  @Option(names = "--prefill-per-token-ms", defaultValue = "0.1",
      description = "Prefill time per prompt token not in the prefix cache (default: ${DEFAULT-VALUE}).")
  double prefillPerTokenMs;

  @Option(names = "--decode-base-ms", defaultValue = "10", description = "Step time of a batch of one.")
  double decodeBaseMs;

  @Option(names = "--decode-per-seq-ms", defaultValue = "0.3", description = "Added step time per running sequence.")
  double decodePerSeqMs;

  @Option(names = "--lora-load-ms", defaultValue = "200", description = "Reading an adapter from disk.")
  double loraLoadMs;

  @Option(names = "--lora-swap-ms", defaultValue = "20", description = "Moving an adapter from host memory to GPU.")
  double loraSwapMs;

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

  public SimConfig config() {
    return SimConfig.builder().model(model).adapters(adapters)
        .loras(maxLoras, maxCpuLoras == null ? maxLoras : maxCpuLoras)
        .capacity(maxNumSeqs, maxWaiting, gpuBlocks).maxModelLen(maxModelLen)
        .prefill(prefillOverheadMs, prefillPerTokenMs).decode(decodeBaseMs, decodePerSeqMs)
        .loraLatency(loraLoadMs, loraSwapMs).meanOutputTokens(meanOutputTokens).failureRate(failureRate).seed(seed)
        .runtimePort(runtimePort).priorityScheduling(schedulingPolicy.equals("priority"))
        .kvEvents(kvEventsConfig == null ? KvEventsConfig.OFF : VllmKvEventsConfig.parse(kvEventsConfig))
        .proposedMetrics(proposedMetrics).build();
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
      running = SimPods.start(config, pods, firstIp, port);
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
    System.out.println("llmgw sim: " + pods + " server(s) for " + model + " with adapters " + adapters + " at "
        + running.pods().stream().map(SimServer::address).toList());
    stopped.await();
    return 0;
  }
}
