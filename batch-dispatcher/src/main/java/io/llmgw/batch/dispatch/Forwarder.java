package io.llmgw.batch.dispatch;

import io.llmgw.api.DropReason;
import io.llmgw.api.EppProtocol;
import io.llmgw.batch.store.Claim;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.QueuedLine;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;

/**
 * Sends one batch line through the gateway's front door like any client, marked as sheddable work with the configured
 * objective, and says what became of it.
 */
public final class Forwarder implements AutoCloseable {
  /** What to do with a line after one attempt. */
  public enum Kind {
    /** It has its result (output or error file). */
    DONE,
    /**
     * The gateway is full or its pool failing (429, 502, 503, 504): queue it again, its attempt not counted, and close
     * the pool's budget until a fresh reading.
     */
    THROTTLED,
    /**
     * The gateway could not be reached or did not answer in time: queue it again, its attempt not counted, and hold
     * every pool until a line goes through.
     */
    UNREACHABLE,
    /**
     * The gateway refused this service's own credentials (401), which no line can mend: queue it again, its attempt not
     * counted, and hold every pool as for an unreachable front door until the configuration is mended.
     */
    CREDENTIALS_REFUSED,
    /** A transient failure of this line (408, 500): queue it again after a pause; it counts toward its attempts. */
    RETRY,
    /**
     * The gateway refused it for its owner's token budget: queue it again after a pause, its attempt not counted,
     * without closing the pool to other owners' lines.
     */
    OWNER_OVER_BUDGET
  }

  /**
   * @param reason a metric label: the status code, or {@code unreachable}, {@code too_large}, {@code interrupted}
   * @param detail what went wrong, for a log line (the connection error), or null
   */
  public record Outcome(Kind kind, LineResult result, String reason, String detail) {
    Outcome(Kind kind, LineResult result, String reason) {
      this(kind, result, reason, null);
    }
  }

  private static final int MAX_RESPONSE_BYTES = 32 << 20;
  /** How much of a refusal's body a log line quotes. */
  private static final int QUOTED_CHARS = 200;

  private final HttpClient http;
  private final String frontDoor;
  private final String objective;
  private final Duration timeout;
  private final int maxAttempts;
  private final String gatewayKey;

  /**
   * @param frontDoor the gateway's base URL, e.g. {@code http://127.0.0.1:8080}
   * @param objective the InferenceObjective to name, or blank for none
   * @param maxAttempts attempts a line gets when the gateway fails it for reasons other than being full
   * @param gatewayKey this service's API key, sent with each line and its batch's owner; null when the gateway checks
   *     no keys
   */
  public Forwarder(String frontDoor, String objective, Duration timeout, int maxAttempts, String gatewayKey) {
    this.gatewayKey = gatewayKey;
    this.frontDoor = frontDoor.endsWith("/") ? frontDoor.substring(0, frontDoor.length() - 1) : frontDoor;
    this.objective = objective;
    this.timeout = timeout;
    this.maxAttempts = maxAttempts;
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
        .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
  }

  /** @param owner the tenant of the line's batch ({@code ""}: none), charged for it at the gateway */
  public Outcome send(Claim claim, String owner) {
    QueuedLine l = claim.item();
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(frontDoor + l.url())).timeout(timeout)
        .header("content-type", "application/json")
        .header("x-request-id", ResultLines.requestId(l))
        .POST(HttpRequest.BodyPublishers.ofString(l.body(), StandardCharsets.UTF_8));
    if (objective != null && !objective.isBlank()) {
      b.header(EppProtocol.OBJECTIVE, objective);
    }
    if (gatewayKey != null) {
      b.header("authorization", "Bearer " + gatewayKey);
      if (!owner.isEmpty()) {
        b.header(EppProtocol.ON_BEHALF_OF, owner);
      }
    }
    int attempt = claim.attempts() + 1;
    HttpResponse<InputStream> r;
    byte[] body;
    try {
      r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = r.body()) {
        body = in.readNBytes(MAX_RESPONSE_BYTES + 1);
      }
    } catch (IOException e) {
      // the front door, not the line: the batch's window bounds how long the line may wait for it
      return new Outcome(Kind.UNREACHABLE, null, "unreachable", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome(Kind.RETRY, null, "interrupted");
    }
    int status = r.statusCode();
    if (body.length > MAX_RESPONSE_BYTES) {
      return new Outcome(Kind.DONE, ResultLines.unanswered(l, "response_too_large", "the answer exceeded "
          + MAX_RESPONSE_BYTES + " bytes"), "too_large");
    }
    String requestId = r.headers().firstValue("x-request-id").orElse(ResultLines.requestId(l));
    String dropped = r.headers().firstValue(DropReason.HEADER).orElse("");
    if (status == 429 && dropped.equals(DropReason.TENANT_QUOTA)) {
      return new Outcome(Kind.DONE, ResultLines.answered(l, status, requestId, body), "429"); // no wait will fit it
    }
    if (status == 429 && dropped.equals(DropReason.TENANT_BUDGET)) {
      // the owner's budget, not the pool: this line waits for it; other owners' lines go on
      return new Outcome(Kind.OWNER_OVER_BUDGET, null, "429_budget");
    }
    if (status == 401) {
      return new Outcome(Kind.CREDENTIALS_REFUSED, null, "401", credentialsRefused(body));
    }
    if (status == 429 || status == 502 || status == 503 || status == 504) {
      return new Outcome(Kind.THROTTLED, null, Integer.toString(status));
    }
    boolean transient5xx = status == 408 || status == 500;
    if (transient5xx && attempt < maxAttempts) {
      return new Outcome(Kind.RETRY, null, Integer.toString(status));
    }
    return new Outcome(Kind.DONE, ResultLines.answered(l, status, requestId, body), Integer.toString(status));
  }

  /** The gateway's own words, for the log line only: printable characters, bounded. */
  private static String credentialsRefused(byte[] body) {
    return new String(body, 0, Math.min(body.length, QUOTED_CHARS), StandardCharsets.UTF_8)
        .replaceAll("[^\\x20-\\x7e]", "?");
  }

  /** What the operator must mend when the gateway answers 401 to this service's lines (no address, no quote). */
  String credentialsMend() {
    return (gatewayKey == null
        ? "the gateway checks API keys and this service sends none: start it with the gateway's --api-keys-file and "
            + "--gateway-key-file"
        : "the gateway refuses this service's key: --gateway-key-file must hold a key of the gateway's "
            + "--api-keys-file")
        + ", one marked actsForOthers";
  }

  @Override
  public void close() {
    http.close();
  }
}
