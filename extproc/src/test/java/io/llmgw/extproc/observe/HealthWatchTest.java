package io.llmgw.extproc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.testing.ManualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, item 1: an EPP whose scraper had died, or whose every request failed, still answered SERVING on all four
 * health services. Real gRPC health over a real port; the EPP's vitals on a manual clock.
 */
class HealthWatchTest {
  final ManualClock clock = new ManualClock(Instant.parse("2026-11-24T00:00:00Z"));
  final AtomicLong lastScraperTick = new AtomicLong(clock.millis());
  final Vitals vitals = new Vitals(clock).watch("the metrics scraper", lastScraperTick::get, Duration.ofSeconds(5));
  final HealthServer health = new HealthServer();
  final HealthWatch watch = new HealthWatch(vitals, health);
  ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    health.start(new InetSocketAddress("127.0.0.1", 0));
    health.setReady(true);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", health.port()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    watch.close();
    health.close();
  }

  @Test
  void item1ADeadScraperTurnsEveryHealthServiceNotServingUntilItTicksAgain() {
    watch.check();
    assertThat(statuses()).containsOnly(ServingStatus.SERVING);

    clock.advance(Duration.ofSeconds(4));
    watch.check();
    assertThat(statuses()).as("silent for less than its limit").containsOnly(ServingStatus.SERVING);
    clock.advance(Duration.ofSeconds(2));
    watch.check();
    assertThat(statuses()).containsOnly(ServingStatus.NOT_SERVING);
    assertThat(vitals.problem()).contains("the metrics scraper has not run for 6000 ms");

    lastScraperTick.set(clock.millis());
    watch.check();
    assertThat(statuses()).containsOnly(ServingStatus.SERVING);
  }

  @Test
  void item1RequestsFailingInARowTurnHealthNotServingAndOneDecisionHealsIt() {
    for (int i = 1; i < Vitals.MAX_INTERNAL_ERRORS_IN_A_ROW; i++) {
      vitals.internalError();
    }
    watch.check();
    assertThat(statuses()).containsOnly(ServingStatus.SERVING);
    vitals.internalError();
    watch.check();
    assertThat(statuses()).containsOnly(ServingStatus.NOT_SERVING);
    vitals.decided();
    watch.check();
    assertThat(statuses()).containsOnly(ServingStatus.SERVING);
  }

  @Test
  void notReadyStaysNotServingWhileLivenessTellsWhetherTheEppWorks() {
    health.setReady(false);
    watch.check();
    assertThat(status("liveness")).isEqualTo(ServingStatus.SERVING);
    assertThat(status("readiness")).isEqualTo(ServingStatus.NOT_SERVING);
  }

  private java.util.List<ServingStatus> statuses() {
    return java.util.stream.Stream.of("", "liveness", "readiness", HealthServer.EXT_PROC_SERVICE)
        .map(this::status).toList();
  }

  private ServingStatus status(String service) {
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
  }
}
