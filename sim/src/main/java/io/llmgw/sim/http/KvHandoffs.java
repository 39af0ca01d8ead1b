package io.llmgw.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.sim.engine.Scheduler;
import io.llmgw.sim.engine.SimConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The prefill side of disaggregated serving: a request whose {@code kv_transfer_params} say {@code do_remote_decode}
 * is prefilled here, and its KV cache is held for the decode pod to pull, as vLLM's NIXL connector holds the blocks
 * until the decode side reads them. The answer carries vLLM's {@code kv_transfer_params} for the decode side
 * ({@code do_remote_prefill}, {@code remote_block_ids}, {@code remote_engine_id}, {@code remote_host},
 * {@code remote_port}); the pull is the simulator's stand-in for NIXL's transfer: {@code POST /sim/kv_pull} with the
 * block ids, answered once the prompt's KV cache would have crossed ({@code kv-transfer-per-token-us} a token). A pod
 * that dies while a pull waits drops the connection, which the decode side sees as a failed transfer. Confined to the
 * pod's event loop; at most {@link #MAX_HELD} prompts are held, the oldest dropped first.
 */
final class KvHandoffs {
  static final int MAX_HELD = 10_000;
  static final String PULL_PATH = "/sim/kv_pull";

  private final SimConfig config;
  private final Scheduler scheduler;
  private final String engineId;
  private final LinkedHashMap<Long, Integer> held = new LinkedHashMap<>(256, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Integer> eldest) {
      return size() > MAX_HELD;
    }
  };
  private long nextBlock = 1;

  KvHandoffs(SimConfig config, Scheduler scheduler, String engineId) {
    this.config = config;
    this.scheduler = scheduler;
    this.engineId = engineId;
  }

  /** Whether the body asks this pod to prefill for a decode pod. */
  static boolean remoteDecode(JsonNode body) {
    return body.path("kv_transfer_params").path("do_remote_decode").asBoolean(false);
  }

  /**
   * Holds the KV cache of a prompt of {@code promptTokens} for a decode pod and says where, as vLLM's answer to a
   * remote-decode request does.
   */
  ObjectNode hold(int promptTokens, String host, int port) {
    int blocks = Math.max(1, config.blocksFor(promptTokens));
    long first = nextBlock;
    nextBlock += blocks;
    held.put(first, promptTokens);
    ObjectNode params = OpenAiResponses.JSON.createObjectNode().put("do_remote_prefill", true)
        .put("do_remote_decode", false);
    ArrayNode ids = params.putArray("remote_block_ids");
    for (int i = 0; i < blocks; i++) {
      ids.add(first + i);
    }
    return params.put("remote_engine_id", engineId).put("remote_host", host).put("remote_port", port)
        .put("tp_size", 1);
  }

  /**
   * A decode pod pulls the blocks it was given: answered with the prompt's token count once the transfer would be
   * over, or with null at once for blocks this pod does not hold (never held, pulled already, or dropped).
   */
  void pull(JsonNode body, Consumer<Integer> done) {
    JsonNode ids = body == null ? null : body.get("remote_block_ids");
    Integer tokens = ids != null && ids.isArray() && !ids.isEmpty() && ids.get(0).canConvertToLong()
        ? held.remove(ids.get(0).asLong()) : null;
    if (tokens == null) {
      done.accept(null);
      return;
    }
    scheduler.schedule(tokens * config.kvTransferPerTokenUs() / 1000.0, () -> done.accept(tokens));
  }
}
