package io.llmgw.sim.engine;

/**
 * vLLM's {@code --kv-events-config} as the simulator takes it: a ZeroMQ PUB socket on {@code port} for the event
 * batches, a ROUTER socket on {@code replayPort} (0: none) answering replay requests from its last
 * {@code bufferSteps} batches, and the topic each message carries. Off when {@code port} is 0.
 */
public record KvEventsConfig(int port, int replayPort, String topic, int bufferSteps) {
  public static final KvEventsConfig OFF = new KvEventsConfig(0, 0, "", 10_000);
  /** vLLM's example ports and topic. */
  public static final KvEventsConfig DEFAULT_ON = new KvEventsConfig(5557, 5558, "kv-events", 10_000);

  public KvEventsConfig {
    if (port < 0 || port > 65535 || replayPort < 0 || replayPort > 65535) {
      throw new IllegalArgumentException("KV-event ports must be within 0..65535");
    }
    if (port > 0 && port == replayPort) {
      throw new IllegalArgumentException("the KV-event endpoint and replay endpoint need different ports");
    }
    if (bufferSteps < 1) {
      throw new IllegalArgumentException("the KV-event replay buffer needs at least one step");
    }
    topic = topic == null ? "" : topic;
  }

  public boolean enabled() {
    return port > 0;
  }
}
