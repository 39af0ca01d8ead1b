package io.llmgw.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The shipped profiles reproduce the published figures sim/README.md cites, within 15 %: each row runs the published
 * workload (InferenceBench's chatbot-short suite: closed loop, ten short questions asked in turn, 128 output tokens)
 * against the engine in virtual time and compares TTFT p50 and TPOT p50.
 */
class ProfileCalibrationTest {
  /**
   * One published measurement: the concurrency and its medians, in milliseconds. {@code clientCapped}: the run's
   * client, not the engine, set the pace (its throughput stopped rising with users), so it is shown, not matched.
   */
  record Published(String profile, int users, double ttftP50, double tpotP50, boolean clientCapped) {
    Published(String profile, int users, double ttftP50, double tpotP50) {
      this(profile, users, ttftP50, tpotP50, false);
    }
  }

  /** yobitelcomm/bench validation envelopes (vLLM 0.21 and 0.22.1 on H100 80GB HBM3), see sim/README.md. */
  static final List<Published> PUBLISHED = List.of(
      new Published("llama-3.1-8b-h100", 1, 13.98, 6.48),
      new Published("llama-3.1-8b-h100", 4, 22.75, 6.59),
      new Published("llama-3.1-8b-h100", 16, 41.69, 10.94, true), // 1,384 tok/s, and 1,312 at 64 users
      new Published("llama-3.1-8b-h100", 64, 86.92, 46.91, true),
      new Published("qwen2.5-72b-tp4-h100", 1, 24.21, 16.05),
      new Published("qwen2.5-72b-tp4-h100", 4, 46.34, 16.43),
      new Published("qwen2.5-72b-tp4-h100", 16, 47.83, 17.30));

  @Test
  void everyShippedProfileReproducesItsPublishedFiguresWithinFifteenPercent() {
    List<String> misses = new ArrayList<>();
    for (Published p : PUBLISHED) {
      ChatbotShort.Figures sim = ChatbotShort.run(SimProfile.load(p.profile()).applyTo(SimConfig.builder()).build(),
          p.users());
      System.out.printf("| %s | %d | %.2f | %.2f | %.2f | %.2f |%s%n", p.profile(), p.users(), p.ttftP50(),
          sim.ttftP50(), p.tpotP50(), sim.tpotP50(), p.clientCapped() ? " client-capped" : "");
      boolean off = Math.abs(sim.ttftP50() / p.ttftP50() - 1) > 0.15
          || Math.abs(sim.tpotP50() / p.tpotP50() - 1) > 0.15;
      if (off && !p.clientCapped()) {
        misses.add(p + " simulated " + sim);
      }
    }
    assertThat(misses).isEmpty();
  }

  @Test
  void withoutAsyncSchedulingTheTimeToFirstTokenAmongOtherUsersFallsShort() {
    for (Published p : PUBLISHED) {
      if (p.users() != 4) {
        continue;
      }
      SimConfig.Builder b = SimProfile.load(p.profile()).applyTo(SimConfig.builder());
      double sync = ChatbotShort.run(b.asyncScheduling(false).build(), p.users()).ttftP50();
      double async = ChatbotShort.run(b.asyncScheduling(true).build(), p.users()).ttftP50();
      System.out.printf("%s, 4 users, TTFT p50 without async scheduling %.1f ms (%.0f %% short), with it %.1f ms%n",
          p.profile(), sync, 100 * (1 - sync / p.ttftP50()), async);
      assertThat(sync / p.ttftP50()).as(p.profile()).isLessThan(0.85);
      assertThat(Math.abs(async / p.ttftP50() - 1)).isLessThan(0.15);
    }
  }

  @Test
  void aProfileMissingACostOrWithANegativeOneIsRefusedByName() {
    Properties p = new Properties();
    for (String key : SimProfile.KEYS) {
      p.setProperty(key, "1");
    }
    p.remove("decode-base-ms");
    assertThatThrownBy(() -> SimProfile.parse("mine", p)).hasMessageContaining("missing cost 'decode-base-ms'");
    p.setProperty("decode-base-ms", "-2");
    assertThatThrownBy(() -> SimProfile.parse("mine", p)).hasMessageContaining("'decode-base-ms' must be");
    p.setProperty("decode-base-ms", "NaN");
    assertThatThrownBy(() -> SimProfile.parse("mine", p)).hasMessageContaining("'decode-base-ms' must be");
    p.setProperty("decode-base-ms", "fast");
    assertThatThrownBy(() -> SimProfile.parse("mine", p)).hasMessageContaining("'decode-base-ms' is not a number");
    p.setProperty("decode-base-ms", "2");
    p.setProperty("decode-bse-ms", "2");
    assertThatThrownBy(() -> SimProfile.parse("mine", p)).hasMessageContaining("unknown key 'decode-bse-ms'");
    assertThatThrownBy(() -> SimProfile.load("no-such-profile")).hasMessageContaining("neither a shipped profile");
  }

  @Test
  void aLoraAdaptersSwapAndLoadCostsScaleWithItsRank() {
    SimProfile p = SimProfile.load("llama-3.1-8b-h100");
    SimConfig r16 = p.applyTo(SimConfig.builder()).build();
    SimConfig r64 = p.applyTo(SimConfig.builder(), 64).build();
    assertThat(r64.loraSwapMs()).isEqualTo(4 * r16.loraSwapMs());
    assertThat(r64.loraLoadMs()).isEqualTo(4 * r16.loraLoadMs());
    assertThatThrownBy(() -> p.applyTo(SimConfig.builder(), 0)).hasMessageContaining("--lora-rank");
  }
}
