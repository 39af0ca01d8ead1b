package io.llmgw.sim.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * InferenceBench's chatbot-short workload against one engine in virtual time: {@code users} closed-loop clients, each
 * asking one of ten short questions in turn (a chat template of about 44 tokens whose first block every question
 * shares), 128 output tokens each, a new request after a gap of up to 20 ms (a client's
 * own time between requests, which varies). Users start spread
 * over a second, as threads started one after another are, not in lockstep.
 */
final class ChatbotShort {
  static final int PROMPT_TOKENS = 44;
  static final int OUTPUT_TOKENS = 128;
  static final int QUESTIONS = 10;
  static final int WARMUP_PER_USER = 3;
  static final int MEASURED_PER_USER = 20;
  static final double START_SPREAD_MS = 1000;
  /** A client's gap before its next request, uniform up to this: the phase within a step at which it arrives varies. */
  static final double MAX_GAP_MS = 20;

  record Figures(double ttftP50, double tpotP50) {}

  private ChatbotShort() {}

  static Figures run(SimConfig config, int users) {
    ManualScheduler clock = new ManualScheduler();
    Engine engine = new Engine(config, clock);
    List<Double> ttfts = new ArrayList<>();
    List<Double> tpots = new ArrayList<>();
    for (int u = 0; u < users; u++) { // threads started one after another: spread over one request's time
      Client c = new Client(engine, clock, u, ttfts, tpots);
      clock.schedule(u * START_SPREAD_MS / users, c::next);
    }
    clock.runUntilIdle();
    return new Figures(median(ttfts), median(tpots));
  }

  private static double median(List<Double> xs) {
    double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    return a.length == 0 ? Double.NaN : a[a.length / 2];
  }

  /** One closed-loop user: sends, waits for the last token, sends again, a bounded number of times. */
  private static final class Client implements SequenceListener {
    private final Engine engine;
    private final ManualScheduler clock;
    private final int user;
    private final List<Double> ttfts;
    private final List<Double> tpots;
    private final SplittableRandom gaps;
    private int sent;
    private double sentAt;
    private double firstAt;

    Client(Engine engine, ManualScheduler clock, int user, List<Double> ttfts, List<Double> tpots) {
      this.engine = engine;
      this.clock = clock;
      this.user = user;
      this.ttfts = ttfts;
      this.tpots = tpots;
      this.gaps = new SplittableRandom(user);
    }

    void next() {
      if (sent == WARMUP_PER_USER + MEASURED_PER_USER) {
        return;
      }
      int question = (user + sent) % QUESTIONS;
      long[] chain = {1L, 1000L + question}; // the template's first block is every question's
      sent++;
      sentAt = clock.nowMs();
      engine.submit(new SimRequest("m", null, PROMPT_TOKENS, chain, OUTPUT_TOKENS, true), this);
    }

    @Override
    public void onToken(String text, int index) {
      if (index == 0) {
        firstAt = clock.nowMs();
      }
    }

    @Override
    public void onFinished(Usage usage, String finishReason) {
      if (sent > WARMUP_PER_USER) {
        ttfts.add(firstAt - sentAt);
        tpots.add((clock.nowMs() - firstAt) / (usage.completionTokens() - 1));
      }
      clock.schedule(gaps.nextDouble(MAX_GAP_MS), this::next);
    }
  }
}
