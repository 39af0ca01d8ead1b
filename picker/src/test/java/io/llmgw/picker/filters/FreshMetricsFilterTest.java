package io.llmgw.picker.filters;

import static io.llmgw.picker.Pods.NOW;
import static io.llmgw.picker.Pods.metrics;
import static io.llmgw.picker.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.InFlight;
import io.llmgw.picker.PickRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreshMetricsFilterTest {
  final EndpointState scraped = pod(1, metrics(0, 0, Set.of()), InFlight.NONE);

  private static FreshMetricsFilter at(long millisAfterScrape) {
    return new FreshMetricsFilter(Clock.fixed(NOW.plusMillis(millisAfterScrape), ZoneOffset.UTC),
        Duration.ofSeconds(2));
  }

  @Test
  void metricsUpToTheBoundAreFreshAndOneMillisecondLaterAreNot() {
    assertThat(at(2_000).keep(PickRequest.of("m"), scraped)).isTrue();
    assertThat(at(2_001).keep(PickRequest.of("m"), scraped)).isFalse();
  }

  @Test
  void anEndpointWhoseScrapesFailIsNeverFresh() {
    EndpointState failing = new EndpointState(scraped.endpoint(), scraped.metrics(), false, InFlight.NONE);
    assertThat(at(0).keep(PickRequest.of("m"), failing)).isFalse();
  }

  @Test
  void theAnswerCountsTheEndpointsThatWereLeft() {
    assertThat(at(0).whyNone(PickRequest.of("m"), List.of(scraped, scraped)).detail())
        .isEqualTo("none of its 2 endpoints has fresh metrics");
  }
}
