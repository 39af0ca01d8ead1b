package io.llmgw.extproc.request.residency;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.request.Choice;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Step;
import io.llmgw.extproc.testing.TestGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JustInTimeLoaderTest {
  static final String ROUTES = FileModeYaml.loadableRoute("sql", "pool", "sql", "sql-v2", "hf://org/sql-v2")
      + FileModeYaml.SEPARATOR + FileModeYaml.route("base", "pool", "base", 0);

  final TestGateway g = new TestGateway(2, ROUTES);
  final List<Double> waits = new ArrayList<>();
  final JustInTimeLoader loader = new JustInTimeLoader(g.parts.adapters().loads(), g.datastore()::states,
      Duration.ofSeconds(30), g.clock, waits::add);

  @AfterEach
  void close() {
    g.close();
  }

  private Loader.Outcome prepare(RequestContext ctx) {
    return loader.prepare(ctx, g.datastore().states(ctx.choice().pools(), ctx.proxySubset()));
  }

  @Test
  void aTargetWithoutASourceMayGoAnywhere() {
    g.allIdle(2);
    assertThat(prepare(Contexts.resolved(g, "base"))).isInstanceOfSatisfying(Loader.Outcome.Ready.class,
        r -> assertThat(r.holders()).isNull());
  }

  @Test
  void aResidentTargetGoesOnlyWhereItIsResident() {
    g.scrapes.report(address(1), 0, 0, 0.1, Set.of());
    g.scrapes.report(address(2), 0, 0, 0.1, Set.of("sql-v2"));
    assertThat(prepare(Contexts.resolved(g, "sql"))).isInstanceOfSatisfying(Loader.Outcome.Ready.class,
        r -> assertThat(r.holders()).containsExactly(address(2)));
    assertThat(g.runtime.loads).isEmpty();
  }

  @Test
  void aTargetResidentNowhereIsLoadedAndTheWaitEndsWithThePodItWentTo() {
    g.allIdle(2);
    Loader.Outcome o = prepare(Contexts.resolved(g, "sql"));
    assertThat(o).isInstanceOf(Loader.Outcome.Loading.class);
    String on = g.runtime.loads.getFirst().substring("sql-v2@".length());
    g.clock.advance(Duration.ofMillis(120));
    g.runtime.finish("sql-v2", on);
    assertThat(((Loader.Outcome.Loading) o).until().resumption().join())
        .isEqualTo(new Step.Resumption.Proceed(on));
    assertThat(waits).as("the wait is measured by the injected ticker").containsExactly(0.12);
  }

  @Test
  void aFailedLoadEndsTheWaitWithA503NamingTheAdapterAndTheError() {
    g.allIdle(1); // one reachable pod: one attempt
    Loader.Outcome o = prepare(Contexts.resolved(g, "sql"));
    g.runtime.fail("sql-v2", address(1), "HTTP 404: no such weights");
    Step.Resumption r = ((Loader.Outcome.Loading) o).until().resumption().join();
    assertThat(r).isInstanceOfSatisfying(Step.Resumption.Refuse.class, refuse -> {
      assertThat(refuse.reply().status()).isEqualTo(503);
      assertThat(refuse.reply().code().wire()).isEqualTo("adapter_unavailable");
      assertThat(refuse.reply().message()).contains("adapter 'sql-v2' for model 'sql'", "HTTP 404");
    });
  }

  @Test
  void aRedirectToAVersionResidentNowhereGoesBackToTheRoutesTarget() {
    g.allIdle(2);
    RequestContext ctx = Contexts.resolved(g, "sql");
    Contexts.choose(ctx, ctx.choice().redirectedTo("sql-v1"));
    Loader.Outcome o = prepare(ctx);
    assertThat(o).isInstanceOfSatisfying(Loader.Outcome.Loading.class,
        l -> assertThat(l.choice().target()).isEqualTo("sql-v2"));
  }

  @Test
  void whileTheRedirectedVersionIsResidentOnlyItsHoldersServe() {
    g.scrapes.report(address(1), 0, 0, 0.1, Set.of("sql-v1"));
    g.scrapes.report(address(2), 0, 0, 0.1, Set.of());
    RequestContext ctx = Contexts.resolved(g, "sql");
    Choice redirected = ctx.choice().redirectedTo("sql-v1");
    Contexts.choose(ctx, redirected);
    assertThat(prepare(ctx)).isEqualTo(new Loader.Outcome.Ready(redirected, Set.of(address(1))));
  }
}
