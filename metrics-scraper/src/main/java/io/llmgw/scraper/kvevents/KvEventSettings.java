package io.llmgw.scraper.kvevents;

import java.time.Duration;

/**
 * Where the pods publish KV-cache events (vLLM's {@code --kv-events-config}): the PUB socket's port on every pod, the
 * replay ROUTER's port (0: none), the topic prefix to subscribe to ("" for all), and how long a replay may take before
 * the gap counts as lost. Off when {@code port} is 0.
 */
public record KvEventSettings(int port, int replayPort, String topic, Duration replayTimeout) {
  public static final KvEventSettings OFF = new KvEventSettings(0, 0, "", Duration.ofSeconds(1));

  public KvEventSettings {
    if (port < 0 || port > 65535 || replayPort < 0 || replayPort > 65535) {
      throw new IllegalArgumentException("--kv-events-port and --kv-events-replay-port must be within 0..65535");
    }
    if (replayTimeout.isNegative() || replayTimeout.isZero()) {
      throw new IllegalArgumentException("the KV-event replay timeout must be positive");
    }
    topic = topic == null ? "" : topic;
  }

  public boolean enabled() {
    return port > 0;
  }
}
