package io.llmgw.scraper.kvevents;

import io.llmgw.api.SettingException;
import java.time.Duration;

/**
 * Where the pods publish KV-cache events (vLLM's {@code --kv-events-config}): the PUB socket's port on every pod, the
 * replay ROUTER's port (0: none), the topic prefix to subscribe to ("" for all), and how long a replay may take before
 * the gap counts as lost. Off when {@code port} is 0.
 *
 * <p>What the pods may cost this replica, whatever they send ({@link IntakeBudget}): {@code maxMessageBytes} the
 * largest batch read (a larger one drops the connection, counted as a loss, and it is made again), {@code budgetBytes}
 * the undecoded events held for all pods together, each pod an equal share, and {@code podBytesPerSecond} what one pod
 * may send before it is distrusted and not listened to for a while (a busy vLLM pod sends well under 2 MB/s).
 */
public record KvEventSettings(int port, int replayPort, String topic, Duration replayTimeout, int maxMessageBytes,
    long budgetBytes, long podBytesPerSecond) {
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 4 << 20;
  public static final long DEFAULT_BUDGET_BYTES = 64L << 20;
  public static final long DEFAULT_POD_BYTES_PER_SECOND = 16L << 20;
  public static final KvEventSettings OFF = new KvEventSettings(0, 0, "", Duration.ofSeconds(1));

  public KvEventSettings {
    if (port < 0 || port > 65535) {
      throw new SettingException("kvEvents.port", "must be within 0..65535");
    }
    if (replayPort < 0 || replayPort > 65535) {
      throw new SettingException("kvEvents.replayPort", "must be within 0..65535");
    }
    if (replayTimeout.isNegative() || replayTimeout.isZero()) {
      throw new IllegalArgumentException("the KV-event replay timeout must be positive");
    }
    if (maxMessageBytes < 1024) {
      throw new SettingException("kvEvents.maxMessageBytes", "must be at least 1024, not " + maxMessageBytes);
    }
    if (budgetBytes < IntakeBudget.MIN_SHARE_BYTES) {
      throw new SettingException("kvEvents.budgetBytes", "must be at least " + IntakeBudget.MIN_SHARE_BYTES + ", not "
          + budgetBytes);
    }
    if (podBytesPerSecond < 1024) {
      throw new SettingException("kvEvents.podBytesPerSecond", "must be at least 1024, not " + podBytesPerSecond);
    }
    topic = topic == null ? "" : topic;
  }

  /** The defaults for what the pods may cost. */
  public KvEventSettings(int port, int replayPort, String topic, Duration replayTimeout) {
    this(port, replayPort, topic, replayTimeout, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_BUDGET_BYTES,
        DEFAULT_POD_BYTES_PER_SECOND);
  }

  public KvEventSettings withLimits(int maxMessage, long budget, long perPodPerSecond) {
    return new KvEventSettings(port, replayPort, topic, replayTimeout, maxMessage, budget, perPodPerSecond);
  }

  public boolean enabled() {
    return port > 0;
  }
}
