package io.llmgw.extproc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The request limits an operator sets: nonsense is refused at start, naming the flag. */
class RequestSettingsTest {
  final RequestSettings d = RequestSettings.defaults();

  @Test
  void limitsThatCannotWorkAreRefusedNamingTheFlag() {
    assertThatThrownBy(() -> d.withStreamLimits(0, d.maxBufferedBytes())).hasMessageContaining("--max-streams");
    assertThatThrownBy(() -> d.withStreamLimits(10, d.maxBodyBytes() - 1L))
        .hasMessageContaining("--max-buffered-bytes");
    assertThatThrownBy(() -> new RequestSettings(d.maxBodyBytes(), 4, 2, false, false, Duration.ofMillis(999), 10,
        d.maxBufferedBytes(), d.idleTimeout(), 16, d.traces())).hasMessageContaining("--max-request-duration");
    assertThatThrownBy(() -> new RequestSettings(d.maxBodyBytes(), 4, 2, false, false, d.maxRequestDuration(), 10,
        d.maxBufferedBytes(), d.idleTimeout(), -1, d.traces())).hasMessageContaining("--explain-every");
    assertThatThrownBy(() -> d.withIdleTimeout(Duration.ZERO)).hasMessageContaining("--request-idle-timeout");
  }

  @Test
  void theDefaultBudgetHoldsAtLeastOneBodyOfTheLargestSize() {
    assertThat(d.maxBufferedBytes()).isGreaterThanOrEqualTo(d.maxBodyBytes());
    assertThat(d.maxStreams()).isPositive();
  }
}
