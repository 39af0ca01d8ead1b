package io.llmgw.bench.faults;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Closed-loop load through the gateway: half the clients stream their chat completions, half do not, each sends its
 * next request when the last ended. Every request's outcome is kept, with when it started and ended, so a run can say
 * what a fault cost. Bounded by {@code maxRequests} and by {@link #stop}.
 */
public final class SteadyLoad implements AutoCloseable {
  /** What happened to one request. */
  public enum Outcome {
    OK,
    /** an error status before any response byte */
    REFUSED,
    /** no response at all: connection refused or reset, or timed out before the response started */
    NO_ANSWER,
    /** the response started and broke off, or a 200 whose body is not a completion */
    CUT
  }

  public record Result(boolean streaming, long startNanos, long endNanos, Outcome outcome, int status) {
    /** Whether nothing of the response reached the client: a gateway could have retried it. */
    public boolean retriable() {
      return outcome == Outcome.REFUSED || outcome == Outcome.NO_ANSWER;
    }
  }

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
  private final ConcurrentLinkedQueue<Result> results = new ConcurrentLinkedQueue<>();
  private final AtomicInteger budget;
  private volatile boolean running = true;
  private final URI uri;
  private final String model;

  public SteadyLoad(int proxyPort, String model, int concurrency, int maxRequests) {
    this.uri = URI.create("http://127.0.0.1:" + proxyPort + "/v1/chat/completions");
    this.model = model;
    this.budget = new AtomicInteger(maxRequests);
    for (int i = 0; i < concurrency; i++) {
      boolean streaming = i % 2 == 0;
      clients.submit(() -> {
        while (running && budget.getAndDecrement() > 0) {
          results.add(one(streaming));
        }
      });
    }
  }

  private Result one(boolean streaming) {
    long start = System.nanoTime();
    String body = "{\"model\":\"" + model + "\",\"max_tokens\":24,\"stream\":" + streaming
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"tell me about faults\"}]}";
    HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
        .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<InputStream> resp;
    try {
      resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      return new Result(streaming, start, System.nanoTime(), Outcome.NO_ANSWER, 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(streaming, start, System.nanoTime(), Outcome.NO_ANSWER, 0);
    }
    if (resp.statusCode() != 200) {
      drain(resp.body());
      return new Result(streaming, start, System.nanoTime(), Outcome.REFUSED, resp.statusCode());
    }
    try (InputStream in = resp.body()) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      boolean whole = streaming ? text.contains("data: [DONE]") : text.contains("\"choices\"");
      return new Result(streaming, start, System.nanoTime(), whole ? Outcome.OK : Outcome.CUT, 200);
    } catch (HttpTimeoutException e) {
      return new Result(streaming, start, System.nanoTime(), Outcome.CUT, 200);
    } catch (IOException e) {
      return new Result(streaming, start, System.nanoTime(), Outcome.CUT, 200);
    }
  }

  private static void drain(InputStream in) {
    try (in) {
      in.readAllBytes();
    } catch (IOException ignored) {
      // the status is what counts
    }
  }

  /** Results so far, oldest first by end time. */
  public List<Result> results() {
    List<Result> out = new ArrayList<>(results);
    out.sort(java.util.Comparator.comparingLong(Result::endNanos));
    return out;
  }

  public void stop() throws InterruptedException {
    running = false;
    clients.shutdown();
    if (!clients.awaitTermination(30, TimeUnit.SECONDS)) {
      clients.shutdownNow();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
    http.close();
  }
}
