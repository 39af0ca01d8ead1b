package io.llmgw.loadgen;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.DoubleUnaryOperator;
import java.util.function.IntConsumer;

/**
 * Open-loop load: requests arrive as a Poisson process at {@code rate} per second for {@code seconds}, whether or not
 * earlier ones have finished (a closed loop would slow down with the system and hide queueing). Each is a streaming
 * chat completion through the gateway; the client times the first token and the gaps between tokens. Bounded: at
 * most {@code rate × seconds} requests, at most {@code maxInFlight} at once (beyond that a request is counted as
 * {@code client-overload}, not sent), and every request times out. A conversational workload's sessions arrive as the
 * Poisson process instead (at {@code rate} divided by the mean turns, so requests still come at about {@code rate}),
 * and each sends its next turn, naming the session in {@value #SESSION_HEADER}, a moment after the previous one ends.
 */
public final class OpenLoopRun {
  public static final String SESSION_HEADER = "x-session-id";

  private final String host;
  private final int port;
  private final Workload workload;
  private final double rate;
  private final double seconds;
  private final long seed;
  private final int maxInFlight;
  private final int timeoutSeconds;
  private DoubleUnaryOperator warp = DoubleUnaryOperator.identity();

  public OpenLoopRun(String host, int port, Workload workload, double rate, double seconds, long seed,
      int maxInFlight, int timeoutSeconds) {
    if (rate <= 0 || seconds <= 0) {
      throw new IllegalArgumentException("rate and duration must be positive");
    }
    this.host = host;
    this.port = port;
    this.workload = workload;
    this.rate = rate;
    this.seconds = seconds;
    this.seed = seed;
    this.maxInFlight = maxInFlight;
    this.timeoutSeconds = timeoutSeconds;
  }

  /**
   * A rate that changes over the run: arrivals are a Poisson process at the mean rate in the run's own time, and
   * {@code toRealSeconds} maps that time onto the clock (the inverse of the cumulative load shape, scaled to the run's
   * length); where it runs slowly the rate is high. The same seed gives the same arrivals for any mapping.
   */
  public OpenLoopRun shaped(DoubleUnaryOperator toRealSeconds) {
    this.warp = toRealSeconds;
    return this;
  }

  /**
   * The models a run with these arguments asks for, in order: the same draws {@link #run} makes, so offline analyses
   * (Belady's MIN) see exactly the trace the gateway served.
   */
  public static List<String> trace(Workload workload, double rate, double seconds, long seed) {
    Random content = new Random(seed * 31 + 7);
    int planned = (int) Math.round(rate * seconds);
    List<String> out = new ArrayList<>(planned);
    for (int i = 0; i < planned; i++) {
      int model = workload.pickModel(content);
      int outputTokens = workload.outputTokens(content);
      workload.body(content, model, outputTokens);
      out.add(workload.models().get(model));
    }
    return out;
  }

  /** Runs to completion; {@code progress} hears the number of finished requests (on the client's thread). */
  public RunResult run(IntConsumer progress) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      CompletableFuture<RunResult> done = new CompletableFuture<>();
      Context context = vertx.getOrCreateContext();
      context.runOnContext(v -> new Driver(vertx, done, progress).start());
      return done.get((long) (seconds + timeoutSeconds + 30), TimeUnit.SECONDS);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** Runs on one event loop: no locks around the result. */
  private final class Driver {
    private final Vertx vertx;
    private final CompletableFuture<RunResult> done;
    private final IntConsumer progress;
    private final HttpClient client;
    private final Random arrivals = new Random(seed);
    private final Random content = new Random(seed * 31 + 7);
    private final RunResult result = new RunResult();
    private final int planned;
    private final List<Conversation> conversations = new ArrayList<>();
    private final int arrivalsPlanned;
    private final double arrivalRate;
    private int arrived;
    private long startNanos;
    private double nextArrivalSeconds;
    private int issued;
    private int finished;
    private int inFlight;

    Driver(Vertx vertx, CompletableFuture<RunResult> done, IntConsumer progress) {
      this.vertx = vertx;
      this.done = done;
      this.progress = progress;
      if (workload.conversational()) {
        int sessions = (int) Math.max(1, Math.round(rate * seconds / workload.meanTurns()));
        int turns = 0;
        for (int i = 0; i < sessions; i++) {
          Conversation c = new Conversation(workload, "chat-" + seed + "-" + i, content);
          conversations.add(c);
          turns += c.turns();
        }
        this.planned = turns;
        this.arrivalsPlanned = sessions;
      } else {
        this.planned = (int) Math.round(rate * seconds);
        this.arrivalsPlanned = planned;
      }
      this.arrivalRate = rate / workload.meanTurns();
      this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setConnectTimeout(5000)
          .setIdleTimeout(timeoutSeconds), new PoolOptions().setHttp1MaxSize(Math.max(16, maxInFlight)));
    }

    void start() {
      startNanos = System.nanoTime();
      nextArrivalSeconds = exponential();
      tick();
    }

    private double exponential() {
      return -Math.log(1 - arrivals.nextDouble()) / arrivalRate;
    }

    private void tick() {
      double now = (System.nanoTime() - startNanos) / 1e9;
      while (arrived < arrivalsPlanned && warp.applyAsDouble(nextArrivalSeconds) <= now) {
        if (workload.conversational()) {
          sendTurn(conversations.get(arrived));
        } else {
          issue();
        }
        arrived++;
        nextArrivalSeconds += exponential();
      }
      if (arrived < arrivalsPlanned) {
        long delayMs = Math.max(1, (long) ((warp.applyAsDouble(nextArrivalSeconds) - now) * 1000));
        vertx.setTimer(delayMs, id -> tick());
      } else {
        maybeDone();
      }
    }

    private void issue() {
      issued++;
      result.sent++;
      int model = workload.pickModel(content);
      int outputTokens = workload.outputTokens(content);
      String body = workload.body(content, model, outputTokens);
      if (inFlight >= maxInFlight) {
        overload(workload.models().get(model));
        return;
      }
      inFlight++;
      String entry = workload.models().get(model);
      result.classOf(entry).sent++;
      new StreamingCall(entry, workload.headers().getOrDefault(entry, Map.of()), null).send(body);
    }

    /** A conversation's next turn; when it ends, the one after follows a user's pause (0.2–1 s) later. */
    private void sendTurn(Conversation c) {
      String body = c.nextBody();
      issued++;
      result.sent++;
      if (inFlight >= maxInFlight) {
        overload(c.model());
        while (c.hasNext()) { // the user gave up: the turns never sent still count, so the run ends
          c.nextBody();
          issued++;
          result.sent++;
          overload(c.model());
        }
        return;
      }
      inFlight++;
      result.classOf(c.model()).sent++;
      Runnable then = c.hasNext() ? () -> vertx.setTimer(200 + arrivals.nextInt(800), id -> sendTurn(c)) : null;
      new StreamingCall(c.model(), Map.of(SESSION_HEADER, c.id()), then).send(body);
    }

    private void overload(String entry) {
      result.outcome("client-overload");
      result.classOf(entry).outcomes.merge("client-overload", 1, Integer::sum);
      finish();
    }

    private void finish() {
      finished++;
      progress.accept(finished);
      maybeDone();
    }

    private void maybeDone() {
      if (issued == planned && finished == planned && !done.isDone()) {
        result.seconds = Math.max((System.nanoTime() - startNanos) / 1e9, seconds);
        client.close();
        done.complete(result);
      }
    }

    /** One streaming request: times the first content token and the gaps after it. */
    private final class StreamingCall {
      private final String model;
      private final Map<String, String> headers;
      private final Runnable then;
      private final StringBuilder pending = new StringBuilder();
      private String variant;
      private long promptTokens;
      private long usageCompletionTokens = -1;
      private long sentNanos;
      private long firstTokenNanos;
      private long lastTokenNanos;
      private int tokens;
      private boolean ended;

      /** @param then what follows once this call ended, whatever its outcome (a conversation's next turn), or null */
      StreamingCall(String model, Map<String, String> headers, Runnable then) {
        this.model = model;
        this.headers = headers;
        this.then = then;
      }

      void send(String body) {
        sentNanos = System.nanoTime();
        RequestOptions options = new RequestOptions().setHost(host).setPort(port).setMethod(HttpMethod.POST)
            .setURI("/v1/chat/completions").setTimeout(timeoutSeconds * 1000L)
            .putHeader("content-type", "application/json");
        headers.forEach(options::putHeader);
        client.request(options)
            .compose(req -> req.send(Buffer.buffer(body)))
            .onSuccess(resp -> {
              variant = resp.getHeader("x-llmgw-variant");
              if (resp.statusCode() != 200) {
                resp.body().onComplete(ignored -> end(Integer.toString(resp.statusCode())));
                return;
              }
              resp.handler(this::chunk);
              resp.endHandler(v -> end(tokens > 0 ? "ok" : "empty-stream"));
              resp.exceptionHandler(t -> end("broken-stream"));
            })
            .onFailure(t -> end(t instanceof TimeoutException
                || String.valueOf(t.getMessage()).contains("timeout") ? "timeout" : "connect-error"));
      }

      private void chunk(Buffer b) {
        long now = System.nanoTime();
        pending.append(b.toString());
        int cut;
        while ((cut = pending.indexOf("\n\n")) >= 0) {
          String event = pending.substring(0, cut);
          pending.delete(0, cut + 2);
          int usage = event.indexOf("\"prompt_tokens\":");
          if (usage >= 0) {
            promptTokens = number(event, usage + 16);
            int completion = event.indexOf("\"completion_tokens\":");
            usageCompletionTokens = completion < 0 ? -1 : number(event, completion + 20);
          }
          if (event.contains("\"content\":\"") && !event.contains("\"content\":\"\"")) {
            if (tokens == 0) {
              firstTokenNanos = now;
            }
            lastTokenNanos = now;
            tokens++;
          }
        }
      }

      private long number(String s, int from) {
        int end = from;
        while (end < s.length() && Character.isDigit(s.charAt(end))) {
          end++;
        }
        return end == from ? 0 : Long.parseLong(s.substring(from, end));
      }

      private void end(String outcome) {
        if (ended) {
          return;
        }
        ended = true;
        inFlight--;
        result.outcome(outcome);
        ClassResult c = result.classOf(model);
        c.outcomes.merge(outcome, 1, Integer::sum);
        if (outcome.equals("ok")) {
          double ttftMs = Math.max(1, (firstTokenNanos - sentNanos) / 1000) / 1000.0;
          c.ttft.recordValue(Math.max(1, (firstTokenNanos - sentNanos) / 1000));
          c.completed.add(new ClassResult.Completed(ttftMs, variant, promptTokens,
              usageCompletionTokens >= 0 ? usageCompletionTokens : tokens));
        }
        if (outcome.equals("ok")) {
          result.ok++;
          result.okByModel.merge(model, 1, Integer::sum);
          result.completionTokens += tokens;
          result.ttft.recordValue(Math.max(1, (firstTokenNanos - sentNanos) / 1000));
          long e2eMicros = Math.max(1, (System.nanoTime() - sentNanos) / 1000);
          result.ntpot.recordValue(Math.max(1, e2eMicros / tokens));
          if (tokens > 1) {
            result.tpot.recordValue(Math.max(1, (lastTokenNanos - firstTokenNanos) / 1000 / (tokens - 1)));
          }
        }
        finish();
        if (then != null) {
          then.run();
        }
      }
    }
  }
}
