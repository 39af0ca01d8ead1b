package io.llmgw.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A flood of one kind of event is one line per interval, saying how many were left out; other kinds are not held up. */
class LogSamplerTest {
  @Test
  void oneLinePerKindPerIntervalWithTheCountLeftOut() {
    AtomicLong now = new AtomicLong();
    LogSampler s = new LogSampler(10, TimeUnit.SECONDS, now::get);
    assertThat(s.admit("invalid_body")).isZero();
    for (int i = 0; i < 1000; i++) {
      assertThat(s.admit("invalid_body")).isEqualTo(-1);
    }
    assertThat(s.admit("model_not_found")).as("another kind has its own window").isZero();
    now.addAndGet(TimeUnit.SECONDS.toNanos(10));
    assertThat(s.admit("invalid_body")).isEqualTo(1000);
    assertThat(s.admit("invalid_body")).isEqualTo(-1);
    now.addAndGet(TimeUnit.SECONDS.toNanos(10));
    assertThat(s.admit("invalid_body")).isEqualTo(1);
    assertThat(LogSampler.leftOut(0)).isEmpty();
    assertThat(LogSampler.leftOut(3)).contains("3 more like it");
  }
}
