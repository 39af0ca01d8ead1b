package io.llmgw.extproc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The request limits an operator sets: nonsense is refused at start, naming the flag. */
class RequestSettingsTest {
  final RequestSettings d = RequestSettings.defaults();

  @Test
  void limitsThatCannotWorkAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> d.withStreamLimits(0, d.maxBufferedBytes())).hasMessageContaining("requests.maxStreams");
    assertThatThrownBy(() -> d.withStreamLimits(10, d.maxBodyBytes() - 1L))
        .hasMessageContaining("requests.maxBufferedBytes");
    assertThatThrownBy(() -> new RequestSettings(d.maxBodyBytes(), 4, 2, false, false, Duration.ofMillis(999), 10,
        d.maxBufferedBytes(), d.idleTimeout(), 16, d.traces())).hasMessageContaining("requests.maxRequestDuration");
    assertThatThrownBy(() -> new RequestSettings(d.maxBodyBytes(), 4, 2, false, false, d.maxRequestDuration(), 10,
        d.maxBufferedBytes(), d.idleTimeout(), -1, d.traces())).hasMessageContaining("requests.explainEvery");
    assertThatThrownBy(() -> d.withIdleTimeout(Duration.ZERO)).hasMessageContaining("requests.idleTimeout");
  }

  @Test
  void theDefaultBudgetHoldsAtLeastOneBodyOfTheLargestSize() {
    assertThat(d.maxBufferedBytes()).isGreaterThanOrEqualTo(d.maxBodyBytes());
    assertThat(d.maxStreams()).isPositive();
  }
}
