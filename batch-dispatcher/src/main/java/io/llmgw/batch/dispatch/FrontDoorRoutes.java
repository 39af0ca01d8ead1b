package io.llmgw.batch.dispatch;

import io.llmgw.batch.shared.ServiceHeader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the gateway's front door sends OpenAI's Files and Batches API to a batch service. A dev proxy started
 * without {@code --batch-service}, or an Envoy without the {@code batch_service} routes, answers those paths itself,
 * and every client's upload is refused while this service waits for batches that never come (issue 53). Asked through
 * the front door now and then, an answer without {@link ServiceHeader} says so: one ERROR line when it is found, and
 * {@link #problem} (the service's {@code /ready}) until the routes are there. A front door that does not answer proves
 * nothing either way; {@link GatewayWatch} watches that.
 */
public final class FrontDoorRoutes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FrontDoorRoutes.class);

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();
  private final String frontDoor;
  private final String gatewayKey;
  private volatile String problem;

  /** @param gatewayKey this service's API key for the gateway, or null when it checks none */
  public FrontDoorRoutes(String frontDoor, String gatewayKey) {
    this.frontDoor = frontDoor.endsWith("/") ? frontDoor.substring(0, frontDoor.length() - 1) : frontDoor;
    this.gatewayKey = gatewayKey;
  }

  /** One question: {@code GET /v1/batches?limit=1} through the front door, as a client would list its batches. */
  public void check() {
    HttpRequest.Builder ask = HttpRequest.newBuilder(URI.create(frontDoor + "/v1/batches?limit=1"))
        .timeout(Duration.ofSeconds(5)).GET();
    if (gatewayKey != null) {
      ask.header("authorization", "Bearer " + gatewayKey);
    }
    HttpResponse<Void> answer;
    try {
      answer = http.send(ask.build(), HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    String before = problem;
    if (answer.headers().firstValue(ServiceHeader.NAME).isPresent()) {
      problem = null;
      if (before != null) {
        LOG.info("batch service: the gateway at {} now sends /v1/files and /v1/batches here", frontDoor);
      }
      return;
    }
    problem = "the gateway does not send /v1/files and /v1/batches to a batch service (it answered HTTP "
        + answer.statusCode() + " itself): start the dev proxy with --batch-service HOST:PORT of this service, or "
        + "route those paths to it as envoy-config/envoy.yaml's batch_service does";
    if (before == null) {
      LOG.error("batch service: {} (asked through {}); clients cannot upload files or create batches through it",
          problem, frontDoor);
    }
  }

  /** What is wrong with the front door's routes, or null when they are right or not known yet. */
  public String problem() {
    return problem;
  }

  @Override
  public void close() {
    http.close();
  }
}
