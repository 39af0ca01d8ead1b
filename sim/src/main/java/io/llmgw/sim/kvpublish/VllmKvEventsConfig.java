package io.llmgw.sim.kvpublish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.sim.engine.KvEventsConfig;
import java.io.IOException;

/**
 * Reads vLLM's {@code --kv-events-config} JSON ({@code enable_kv_cache_events}, {@code publisher} "zmq",
 * {@code endpoint} and {@code replay_endpoint} as {@code tcp://*:PORT}, {@code topic}, {@code buffer_steps}). Each pod
 * binds the ports on its own address, so several pods on one machine share one configuration.
 */
public final class VllmKvEventsConfig {
  private static final ObjectMapper JSON = new ObjectMapper();

  private VllmKvEventsConfig() {}

  /** @throws IllegalArgumentException naming the field that is wrong */
  public static KvEventsConfig parse(String json) {
    JsonNode n;
    try {
      n = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("--kv-events-config is not JSON: " + e.getMessage());
    }
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("--kv-events-config must be a JSON object");
    }
    if (!n.path("enable_kv_cache_events").asBoolean(false)) {
      return KvEventsConfig.OFF;
    }
    String publisher = n.path("publisher").asText("zmq");
    if (!publisher.equals("zmq")) {
      throw new IllegalArgumentException("--kv-events-config: the simulator publishes over zmq only, not " + publisher);
    }
    int port = port(n.path("endpoint").asText("tcp://*:5557"), "endpoint");
    int replay = n.hasNonNull("replay_endpoint") ? port(n.get("replay_endpoint").asText(), "replay_endpoint") : 0;
    return new KvEventsConfig(port, replay, n.path("topic").asText(""), n.path("buffer_steps").asInt(10_000));
  }

  private static int port(String endpoint, String field) {
    int colon = endpoint.lastIndexOf(':');
    if (!endpoint.startsWith("tcp://") || colon < 0) {
      throw new IllegalArgumentException("--kv-events-config: " + field + " must be tcp://HOST:PORT, not " + endpoint);
    }
    try {
      return Integer.parseInt(endpoint.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--kv-events-config: " + field + " has no port: " + endpoint);
    }
  }
}
