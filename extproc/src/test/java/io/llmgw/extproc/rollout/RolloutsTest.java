package io.llmgw.extproc.rollout;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.extproc.testing.TestGateway;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A route's only loadable target changes from v1 to v2: v2 is loaded to as many copies as v1 has while requests keep
 * going to v1 (the rollout redirect), then traffic moves and v1 is unloaded where idle.
 */
class RolloutsTest {
  static final String V1 = FileModeYaml.loadableRoute("sql", "pool", "sql", "sql-v1", "hf://v1");
  static final String V2 = FileModeYaml.loadableRoute("sql", "pool", "sql", "sql-v2", "hf://v2");

  final TestGateway g = new TestGateway(3, V1);

  @AfterEach
  void close() {
    g.close();
  }

  private Step route() {
    RequestContext ctx = Contexts.arrived(g, "sql");
    return g.director().start(ctx);
  }

  private static String destination(Step step) {
    return ((Step.Forward) step).routed().decision().primary().address();
  }

  @Test
  void theOldVersionServesUntilTheNewOneMatchesItsCopiesThenItIsDrained() {
    g.scrapes.report(address(1), 0, 0, 0.1, Set.of("sql-v1"));
    g.scrapes.report(address(2), 0, 0, 0.1, Set.of("sql-v1"));
    g.scrapes.report(address(3), 0, 0, 0.1, Set.of());
    g.apply(3, V2);
    assertThat(g.runtime.loads).as("the new version is loaded ahead of traffic").hasSize(1);

    RequestContext inFlight = Contexts.arrived(g, "sql");
    Step during = g.director().start(inFlight);
    assertThat(destination(during)).isIn(address(1), address(2));
    assertThat(((Step.Forward) during).routed().body().toStringUtf8()).contains("\"model\":\"sql-v1\"");

    String first = g.runtime.loads.getFirst().substring("sql-v2@".length());
    g.runtime.finish("sql-v2", first);
    await().atMost(Duration.ofSeconds(5)).until(() -> g.runtime.loads.size() == 2); // a second copy, as v1 had
    g.runtime.finish("sql-v2", g.runtime.loads.get(1).substring("sql-v2@".length()));

    await().atMost(Duration.ofSeconds(5)).until(() -> g.runtime.unloads.size() == 1);
    assertThat(g.runtime.unloads).as("the idle copy only: the other serves a request")
        .doesNotContain("sql-v1@" + destination(during));
    inFlight.lease().release();
    await().atMost(Duration.ofSeconds(5)).until(() -> g.runtime.unloads.size() == 2);
    assertThat(g.runtime.unloads).containsExactlyInAnyOrder("sql-v1@" + address(1), "sql-v1@" + address(2));
    Step after = route();
    assertThat(((Step.Forward) after).routed().body().toStringUtf8()).contains("\"model\":\"sql-v2\"");
  }

  @Test
  void aRequestRedirectedToTheOldVersionGoesBackToTheNewOneWhenTheOldIsNoLongerResident() {
    g.scrapes.report(address(1), 0, 0, 0.1, Set.of("sql-v1"));
    g.scrapes.report(address(2), 0, 0, 0.1, Set.of());
    g.scrapes.report(address(3), 0, 0, 0.1, Set.of());
    g.apply(3, V2);
    for (int i = 1; i <= 3; i++) {
      g.scrapes.report(address(i), 10, 4, 0.5, i == 1 ? Set.of("sql-v1") : Set.of()); // saturated: it waits
    }
    RequestContext ctx = Contexts.arrived(g, "sql");
    Step waiting = g.director().start(ctx);
    assertThat(ctx.choice().target()).as("redirected at arrival").isEqualTo("sql-v1");

    g.scrapes.report(address(1), 0, 0, 0.1, Set.of()); // v1 left the pod meanwhile, and the pool has room
    g.allIdle(3);
    Step next = g.director().resume(ctx, ((Step.Wait) waiting).resumption().join());
    assertThat(next).as("it waits for the new version, which it may load").isInstanceOf(Step.Wait.class);
    assertThat(ctx.choice().target()).isEqualTo("sql-v2");
  }
}
