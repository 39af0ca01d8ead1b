package io.llmgw.batch;

import java.time.Duration;
import java.util.Map;

/**
 * The batch service's settings.
 *
 * @param eppAdmin the EPP's metrics/admin address (host:port), read for each pool's load
 * @param frontDoor the gateway's base URL the lines are sent through (Envoy or the dev proxy)
 * @param store {@code sqlite:FILE} or {@code redis://host:port[/db]}
 * @param objective the InferenceObjective named on every line, so the EPP treats it as sheddable; blank for none
 * @param baseline B, the share of capacity kept for bursts of interactive traffic
 * @param gate u: batch goes out only while F_sys + F_epp + B is at most this
 * @param slotsPerPod a pod's capacity in requests when the pool has no entry in {@code capacity}
 * @param capacity max_sys per pool ({@code namespace/name}), overriding pods × slotsPerPod
 * @param visibility how long a claim lasts without renewal before another dispatcher may take the line (Redis)
 * @param maxAttempts attempts for lines that fail for reasons other than a full gateway
 * @param maxFileBytes largest upload accepted
 * @param maxLineBytes largest input line (a request body) accepted
 * @param maxLines most lines in one batch
 * @param podPriority vLLM's request {@code priority} written into each line's body that has none (a higher number runs
 *     later; pods started with {@code --scheduling-policy priority} preempt batch lines for interactive requests), or
 *     null to leave bodies as they are
 * @param retention how long a finished batch (with its output and error files) and an uploaded file are kept
 * @param eppToken the bearer token the EPP's metrics/admin port wants for reads, or null
 */
public record BatchSettings(String host, int port, String eppAdmin, String frontDoor, String store, String objective,
    double baseline, double gate, int slotsPerPod, Map<String, Integer> capacity, Duration pollInterval,
    Duration visibility, Duration requestTimeout, int maxAttempts, long maxFileBytes, int maxLineBytes, int maxLines,
    int maxInFlight, Integer podPriority, Duration retention, String eppToken) {

  public BatchSettings {
    capacity = Map.copyOf(capacity);
    if (baseline < 0 || baseline >= 1) {
      throw new IllegalArgumentException("--baseline must be within [0, 1)");
    }
    if (gate <= 0 || gate > 1) {
      throw new IllegalArgumentException("--gate must be within (0, 1]");
    }
    if (slotsPerPod < 1 || maxAttempts < 1 || maxLines < 1 || maxLineBytes < 1 || maxFileBytes < 1 || maxInFlight < 1) {
      throw new IllegalArgumentException("--slots-per-pod, --max-attempts, --max-lines, --max-line-bytes, "
          + "--max-file-bytes and --max-in-flight must be positive");
    }
  }

  public static BatchSettings defaults() {
    return new BatchSettings("127.0.0.1", 8090, "127.0.0.1:9090", "http://127.0.0.1:8080", "sqlite:llmgw-batch.db",
        "batch", 0.05, 0.95, 64, Map.of(), Duration.ofMillis(50), Duration.ofSeconds(60), Duration.ofMinutes(10), 5,
        200L << 20, 8 << 20, 50_000, 10_000, null, Duration.ofDays(30), null);
  }

  public BatchSettings withListener(String h, int p) {
    return new BatchSettings(h, p, eppAdmin, frontDoor, store, objective, baseline, gate, slotsPerPod, capacity,
        pollInterval, visibility, requestTimeout, maxAttempts, maxFileBytes, maxLineBytes, maxLines, maxInFlight,
        podPriority, retention, eppToken);
  }

  public BatchSettings withGateway(String admin, String front) {
    return new BatchSettings(host, port, admin, front, store, objective, baseline, gate, slotsPerPod, capacity,
        pollInterval, visibility, requestTimeout, maxAttempts, maxFileBytes, maxLineBytes, maxLines, maxInFlight,
        podPriority, retention, eppToken);
  }

  public BatchSettings withStore(String s) {
    return new BatchSettings(host, port, eppAdmin, frontDoor, s, objective, baseline, gate, slotsPerPod, capacity,
        pollInterval, visibility, requestTimeout, maxAttempts, maxFileBytes, maxLineBytes, maxLines, maxInFlight,
        podPriority, retention, eppToken);
  }

  public BatchSettings withCapacity(int slots, Map<String, Integer> perPool) {
    return new BatchSettings(host, port, eppAdmin, frontDoor, store, objective, baseline, gate, slots, perPool,
        pollInterval, visibility, requestTimeout, maxAttempts, maxFileBytes, maxLineBytes, maxLines, maxInFlight,
        podPriority, retention, eppToken);
  }

  public BatchSettings withLimits(long fileBytes, int lineBytes, int lines) {
    return new BatchSettings(host, port, eppAdmin, frontDoor, store, objective, baseline, gate, slotsPerPod, capacity,
        pollInterval, visibility, requestTimeout, maxAttempts, fileBytes, lineBytes, lines, maxInFlight,
        podPriority, retention, eppToken);
  }

  public BatchSettings withPodPriority(Integer priority) {
    return new BatchSettings(host, port, eppAdmin, frontDoor, store, objective, baseline, gate, slotsPerPod, capacity,
        pollInterval, visibility, requestTimeout, maxAttempts, maxFileBytes, maxLineBytes, maxLines, maxInFlight,
        priority, retention, eppToken);
  }

  /** Hides the EPP token: settings may be logged. */
  @Override
  public String toString() {
    return "BatchSettings[" + host + ":" + port + ", epp " + eppAdmin + (eppToken == null ? "" : " (with a token)")
        + ", gateway " + frontDoor + ", store " + (store.startsWith("redis") ? "redis" : store) + "]";
  }

  /** max_sys of a pool with {@code pods} fresh pods. */
  public int maxSys(String pool, int pods) {
    Integer fixed = capacity.get(pool);
    return fixed != null ? fixed : pods * slotsPerPod;
  }
}
