package io.llmgw.bench.load;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Users who each send a streamed chat request, wait for its end, and send the next: a tenant that always has work
 * waiting, as a saturated band needs. Counts the requests that ended in the window (after the warm-up), the tokens
 * their usage reports and their time to first token. Bounded: every user stops sending at the window's end.
 */
final class ClosedLoop {
  private static final Pattern CONTENT = Pattern.compile("\"content\":\"[^\"]");
  private static final Pattern USAGE = Pattern.compile("\"prompt_tokens\":(\\d+),\"completion_tokens\":(\\d+)");

  /** What one tenant's users got in the window. */
  record Result(long requests, long tokens, long errors, Histogram ttftMicros) {
    double ttftMs(double quantile) {
      return ttftMicros.getTotalCount() == 0 ? Double.NaN : ttftMicros.getValueAtPercentile(quantile) / 1000.0;
    }
  }

  private final String url;
  private final String key;
  private final int promptTokens;
  private final int outputTokens;
  private final int users;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong tokens = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Histogram ttft = new Histogram(3_600_000_000L, 3);

  /** vLLM's request {@code priority} each body carries, or null for none. */
  private final Integer priority;

  ClosedLoop(String url, String key, int promptTokens, int outputTokens, int users) {
    this(url, key, promptTokens, outputTokens, users, null);
  }

  ClosedLoop(String url, String key, int promptTokens, int outputTokens, int users, Integer priority) {
    this.url = url;
    this.key = key;
    this.promptTokens = promptTokens;
    this.outputTokens = outputTokens;
    this.users = users;
    this.priority = priority;
  }

  /** Runs every loop's users at once: {@code warmUp}, then {@code window} counted; one result per loop, in order. */
  static Result[] runTogether(List<ClosedLoop> loops, Duration warmUp, Duration window) throws InterruptedException {
    long countFrom = System.nanoTime() + warmUp.toNanos();
    long end = countFrom + window.toNanos();
    List<Thread> threads = new ArrayList<>();
    for (ClosedLoop l : loops) {
      for (int u = 0; u < l.users; u++) {
        threads.add(Thread.ofVirtual().start(() -> l.user(countFrom, end)));
      }
    }
    for (Thread t : threads) {
      t.join();
    }
    return loops.stream().map(l -> new Result(l.requests.get(), l.tokens.get(), l.errors.get(), l.ttft))
        .toArray(Result[]::new);
  }

  private void user(long countFrom, long end) {
    while (System.nanoTime() < end) {
      long sent = System.nanoTime();
      try {
        HttpResponse<java.io.InputStream> r = http.send(HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(120)).header("content-type", "application/json")
            .header("authorization", "Bearer " + key).POST(HttpRequest.BodyPublishers.ofString(body())).build(),
            HttpResponse.BodyHandlers.ofInputStream());
        long first = 0;
        long used = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (first == 0 && CONTENT.matcher(line).find()) {
              first = System.nanoTime();
            }
            Matcher m = USAGE.matcher(line);
            if (m.find()) {
              used = Long.parseLong(m.group(1)) + Long.parseLong(m.group(2));
            }
          }
        }
        // what completed in the window, whenever it was sent: a long request sent before the window and ended in it
        // counts, as one sent in it and ended after does not (each tenant's throughput in the steady state)
        long ended = System.nanoTime();
        boolean counted = ended >= countFrom && ended <= end;
        if (r.statusCode() != 200 || first == 0) {
          if (counted) {
            errors.incrementAndGet();
          }
          continue;
        }
        if (counted) {
          requests.incrementAndGet();
          tokens.addAndGet(used);
          synchronized (ttft) {
            ttft.recordValue(Math.max(1, (first - sent) / 1000));
          }
        }
      } catch (Exception e) {
        errors.incrementAndGet();
      }
    }
  }

  /** A prompt of about {@code promptTokens} (4 characters each), unique from its first token: nothing is cached. */
  private String body() {
    char[] words = new char[promptTokens * 4];
    Arrays.fill(words, 'a');
    for (int i = 4; i < words.length; i += 4) {
      words[i - 1] = ' ';
    }
    String unique = Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36);
    return "{\"model\":\"" + io.llmgw.sim.engine.SimConfig.DEFAULT_MODEL + "\",\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true},\"max_tokens\":" + outputTokens
        + (priority == null ? "" : ",\"priority\":" + priority) + ",\"messages\":[{\"role\":"
        + "\"user\",\"content\":\"" + unique + " " + new String(words, 0, words.length - 12) + "\"}]}";
  }
}
