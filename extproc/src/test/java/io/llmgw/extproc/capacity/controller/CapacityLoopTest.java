package io.llmgw.extproc.capacity.controller;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.PoolKey;
import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.latency.LoadSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 52: the plan made from the gateway's own parts, and the lines an operator reads when a pool cannot be planned
 * well: no price, pods asked for that never become ready. Each is said once, when it starts.
 */
class CapacityLoopTest {
  final TestGateway g = new TestGateway(2, "");
  final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  final Logger logger = (Logger) LoggerFactory.getLogger(CapacityLoop.class);

  CapacityLoopTest() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void close() {
    logger.detachAppender(logs);
    g.close();
  }

  private String log() {
    return String.join("\n", logs.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList());
  }

  private PoolPlan pool() {
    g.parts.capacity().runOnce();
    return g.parts.capacity().plan().pools().stream().filter(p -> p.pool().equals(new PoolKey("default", "pool")))
        .findFirst().orElseThrow();
  }

  @Test
  void anUnpricedPoolIsNamedOnceAndPricedAtOne() {
    g.allIdle(2);
    PoolPlan p = pool();
    pool();
    assertThat(p.costPerHour()).isEqualTo(p.desired());
    assertThat(log().split("declares no llmgw.io/cost-per-pod-hour", -1)).as(log()).hasSize(2);
    assertThat(log()).contains("WARN capacity: pool default/pool declares no llmgw.io/cost-per-pod-hour annotation");
  }

  @Test
  void reportsAMomentLateAreNoDemandButOnesThatStoppedAre() {
    g.allIdle(2);
    assertThat(pool().desired()).isEqualTo(2);
    g.clock.advance(Duration.ofSeconds(1)); // the scraper stalled: both reports past flow control's 200 ms
    PoolPlan late = pool();
    assertThat(late.desired()).as(late.reason()).isEqualTo(2);
    g.clock.advance(CapacityLoop.REPORTS_LATE); // no report for 11 s: the pods count as full, ceil(2 / 0.8) = 3
    PoolPlan stopped = pool();
    assertThat(stopped.desired()).as(stopped.reason()).isEqualTo(3);
  }

  @Test
  void podsAskedForThatNeverBecomeReadyAreNamedWithWhatToCheck() {
    g.allIdle(2);
    assertThat(pool().desired()).isEqualTo(2);
    // both pods full (10 waiting of 5): the saturation gauge's demand, ceil(2 × 2 / 0.8) = 5 pods; none arrives
    g.scrapes.report(address(1), 10, 4, 0.5, Set.of());
    g.scrapes.report(address(2), 10, 4, 0.5, Set.of());
    assertThat(pool().desired()).isEqualTo(5);
    g.clock.advance(Duration.ofSeconds(100));
    g.scrapes.report(address(1), 10, 4, 0.5, Set.of());
    g.scrapes.report(address(2), 10, 4, 0.5, Set.of());
    assertThat(log()).doesNotContain("not ready after");
    g.clock.advance(Duration.ofSeconds(150)); // 3 load times (the default 1 min) and a minute have passed
    g.scrapes.report(address(1), 10, 4, 0.5, Set.of());
    g.scrapes.report(address(2), 10, 4, 0.5, Set.of());
    PoolPlan overdue = pool();
    assertThat(overdue.reason()).contains("3 of 5 pods not ready after 250 s; load time 60 s");
    assertThat(log()).contains("check that its pods can start");
    assertThat(log()).contains("INFO capacity: pool default/pool 2 -> 5 pods").as("the change of plan, once");
  }

  /**
   * vLLM does not publish its --max-num-seqs: without a declaration a pool's throughput is unknown until its pods have
   * run full with a queue, and the saturation gauge plans it; with {@code llmgw.io/max-batch} the latency model's
   * throughput counts from the first pass, within what the pods' KV caches hold.
   */
  @Test
  void aDeclaredBatchLimitLetsThePlanUseMeasuredThroughputBeforeAnyQueue() throws Exception {
    for (int i = 0; i < 200; i++) {
      for (int pod = 1; pod <= 2; pod++) {
        g.parts.latency().estimator().observe(address(pod), new LoadSnapshot(0, i % 4, 0), 100, 50 + 10 * (i % 4),
            10 + i % 4);
      }
    }
    g.allIdle(2);
    assertThat(pool().reason()).contains("throughput per pod not measured yet");
    declare("llmgw.io/max-batch: \"8\"");
    g.allIdle(2);
    assertThat(pool().reason()).contains("req/s per pod");
  }

  private void declare(String annotations) throws Exception {
    String yaml = FileModeYaml.pool("pool", "vllm", TestGateway.PORT)
        .replace("metadata: {name: pool}", "metadata: {name: pool, annotations: {" + annotations + "}}")
        + FileModeYaml.pods("pod", "vllm", List.of(address(1), address(2)));
    g.parts.datastore().apply(ConfigFileLoader.parse("test.yaml", yaml));
  }
}
