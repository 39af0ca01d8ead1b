package io.llmgw.batch.shared;

import io.llmgw.api.BodyLimit;
import io.llmgw.api.SettingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The batch service's settings, in groups, each with its own defaults.
 *
 * @param endpoints where it listens, and the EPP and gateway it talks to
 * @param store {@code sqlite:FILE} or {@code redis://host:port[/db]}
 * @param budget how much of the pools' capacity batch lines may use, and how often it is read
 * @param delivery how each line is sent and retried
 * @param limits what an upload and a batch may hold
 * @param retention how long a finished batch (with its output and error files) and an uploaded file are kept
 * @param access who may call the service and read its metrics, and how it names the owner of each line it sends
 */
public record BatchSettings(Endpoints endpoints, String store, Budget budget, Delivery delivery, InputLimits limits,
    Duration retention, Access access) {
  /**
   * Tenants (issue 31). Off (no keys file, no header): files and batches belong to nobody and every caller sees all.
   *
   * @param apiKeysFile the API keys file the EPP reads (the same file): a caller's key names its tenant
   * @param tenantHeader the header the proxy's own authentication sets, trusted when configured
   * @param gatewayKey this service's own key (one marked {@code actsForOthers}), sent with each line and the line's
   *     owner in {@code x-llmgw-on-behalf-of}; null when the gateway checks no keys
   * @param readToken the token {@code /metrics} and {@code /admin/batch/status} want (the EPP's read token), or null
   */
  public record Access(Path apiKeysFile, String tenantHeader, String gatewayKey, String readToken) {
    public static final Access OPEN = new Access(null, null, null, null);

    public Access {
      tenantHeader = tenantHeader == null || tenantHeader.isBlank() ? null
          : tenantHeader.toLowerCase(Locale.ROOT);
    }

    public boolean tenants() {
      return apiKeysFile != null || tenantHeader != null;
    }

    /** Hides the tokens: settings may be logged. */
    @Override
    public String toString() {
      return tenants() ? "tenants" : "open";
    }
  }

  /**
   * @param eppAdmin the EPP's metrics/admin address (host:port), read for each pool's load
   * @param frontDoor the gateway's base URL the lines are sent through (Envoy or the dev proxy)
   * @param eppToken the bearer token the EPP's metrics/admin port wants for reads, or null
   */
  public record Endpoints(String host, int port, String eppAdmin, String frontDoor, String eppToken) {
    public static Endpoints defaults() {
      return new Endpoints("127.0.0.1", 8090, "127.0.0.1:9090", "http://127.0.0.1:8080", null);
    }

    /** Hides the EPP token: settings may be logged. */
    @Override
    public String toString() {
      return host + ":" + port + ", epp " + eppAdmin + (eppToken == null ? "" : " (with a token)") + ", gateway "
          + frontDoor;
    }
  }

  /**
   * @param baseline B, the share of capacity kept for bursts of interactive traffic
   * @param gate u: batch goes out only while F_sys + F_epp + B is at most this
   * @param slotsPerPod a pod's capacity in requests when the pool has no entry in {@code capacity}
   * @param capacity max_sys per pool ({@code namespace/name}), overriding pods × slotsPerPod
   * @param pollInterval how often the EPP's load is read
   * @param maxInFlight most lines this dispatcher has sent and not yet seen answered
   */
  public record Budget(double baseline, double gate, int slotsPerPod, Map<String, Integer> capacity,
      Duration pollInterval, int maxInFlight) {
    public Budget {
      capacity = Map.copyOf(capacity);
      if (baseline < 0 || baseline >= 1) {
        throw new SettingException("budget.baseline", "must be within [0, 1), got " + baseline);
      }
      if (gate <= 0 || gate > 1) {
        throw new SettingException("budget.gate", "must be within (0, 1], got " + gate);
      }
      if (slotsPerPod < 1) {
        throw new SettingException("budget.slotsPerPod", "must be positive, got " + slotsPerPod);
      }
      if (maxInFlight < 1) {
        throw new SettingException("budget.maxInFlight", "must be positive, got " + maxInFlight);
      }
    }

    public static Budget defaults() {
      return new Budget(0.05, 0.95, 64, Map.of(), Duration.ofMillis(50), 10_000);
    }

    /** max_sys of a pool with {@code pods} fresh pods. */
    public int maxSys(String pool, int pods) {
      Integer fixed = capacity.get(pool);
      return fixed != null ? fixed : pods * slotsPerPod;
    }
  }

  /**
   * @param objective the InferenceObjective named on every line, so the EPP treats it as sheddable; blank for none
   * @param visibility how long a claim lasts without renewal before another dispatcher may take the line (Redis)
   * @param requestTimeout the longest one line's request may take
   * @param maxAttempts attempts for lines that fail for reasons other than a full gateway
   * @param podPriority vLLM's request {@code priority} written into each line's body that has none (a higher number runs
   *     later; pods started with {@code --scheduling-policy priority} preempt batch lines for interactive requests), or
   *     null to leave bodies as they are
   */
  public record Delivery(String objective, Duration visibility, Duration requestTimeout, int maxAttempts,
      Integer podPriority) {
    public Delivery {
      if (maxAttempts < 1) {
        throw new SettingException("delivery.maxAttempts", "must be positive, got " + maxAttempts);
      }
    }

    public static Delivery defaults() {
      return new Delivery("batch", Duration.ofSeconds(60), Duration.ofMinutes(10), 5, null);
    }
  }

  /**
   * @param maxFileBytes largest upload accepted
   * @param maxLineBytes largest input line (a request body) accepted
   * @param maxLines most lines in one batch
   * @param headerDeadline how long a connection may take to send a request's headers (slow clients are dropped)
   * @param idleDeadline how long a request's body may pause between two pieces
   * @param uploadDeadline how long one upload may take in all
   */
  public record InputLimits(long maxFileBytes, int maxLineBytes, int maxLines, Duration headerDeadline,
      Duration idleDeadline, Duration uploadDeadline) {
    public InputLimits {
      if (maxLines < 1) {
        throw new SettingException("limits.maxLines", "must be positive, got " + maxLines);
      }
      if (maxLineBytes < 1) {
        throw new SettingException("limits.maxLineBytes", "must be positive, got " + maxLineBytes);
      }
      if (maxFileBytes < 1) {
        throw new SettingException("limits.maxFileBytes", "must be positive, got " + maxFileBytes);
      }
      positive("limits.headerDeadline", headerDeadline);
      positive("limits.idleDeadline", idleDeadline);
      positive("limits.uploadDeadline", uploadDeadline);
    }

    public InputLimits(long maxFileBytes, int maxLineBytes, int maxLines) {
      this(maxFileBytes, maxLineBytes, maxLines, Duration.ofSeconds(10), Duration.ofSeconds(30),
          Duration.ofMinutes(15));
    }

    public static InputLimits defaults() {
      return new InputLimits(200L << 20, BodyLimit.DEFAULT_BYTES, 50_000);
    }

    public InputLimits withDeadlines(Duration headers, Duration idle, Duration upload) {
      return new InputLimits(maxFileBytes, maxLineBytes, maxLines, headers, idle, upload);
    }
  }

  public static BatchSettings defaults() {
    return new BatchSettings(Endpoints.defaults(), "sqlite:llmgw-batch.db", Budget.defaults(), Delivery.defaults(),
        InputLimits.defaults(), Duration.ofDays(30), Access.OPEN);
  }

  public BatchSettings withListener(String h, int p) {
    return withEndpoints(new Endpoints(h, p, endpoints.eppAdmin(), endpoints.frontDoor(), endpoints.eppToken()));
  }

  public BatchSettings withGateway(String admin, String front) {
    return withEndpoints(new Endpoints(endpoints.host(), endpoints.port(), admin, front, endpoints.eppToken()));
  }

  public BatchSettings withAccess(Access a) {
    return new BatchSettings(endpoints, store, budget, delivery, limits, retention, a);
  }

  public BatchSettings withEndpoints(Endpoints e) {
    return new BatchSettings(e, store, budget, delivery, limits, retention, access);
  }

  public BatchSettings withStore(String s) {
    return new BatchSettings(endpoints, s, budget, delivery, limits, retention, access);
  }

  public BatchSettings withBudget(Budget b) {
    return new BatchSettings(endpoints, store, b, delivery, limits, retention, access);
  }

  public BatchSettings withCapacity(int slots, Map<String, Integer> perPool) {
    return withBudget(new Budget(budget.baseline(), budget.gate(), slots, perPool, budget.pollInterval(),
        budget.maxInFlight()));
  }

  public BatchSettings withDelivery(Delivery d) {
    return new BatchSettings(endpoints, store, budget, d, limits, retention, access);
  }

  public BatchSettings withPodPriority(Integer priority) {
    return withDelivery(new Delivery(delivery.objective(), delivery.visibility(), delivery.requestTimeout(),
        delivery.maxAttempts(), priority));
  }

  public BatchSettings withLimits(long fileBytes, int lineBytes, int lines) {
    return withLimits(new InputLimits(fileBytes, lineBytes, lines, limits.headerDeadline(), limits.idleDeadline(),
        limits.uploadDeadline()));
  }

  public BatchSettings withLimits(InputLimits l) {
    return new BatchSettings(endpoints, store, budget, delivery, l, retention, access);
  }

  /** Hides the EPP token and a Redis address's credentials: settings may be logged. */
  @Override
  public String toString() {
    return "BatchSettings[" + endpoints + ", store " + (store.startsWith("redis") ? "redis" : store) + "]";
  }

  private static void positive(String setting, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new SettingException(setting, "must be positive, got " + d);
    }
  }
}
