package io.llmgw.extproc.request;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.EppProtocol;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.testing.TestGateway;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The lifecycle phase by phase, over the EPP's real parts and fake pods: no sockets, the test's clock. */
class DirectorTest {
  static final String ROUTES = FileModeYaml.route("chat", "pool", "chat-lora", 5) + FileModeYaml.SEPARATOR
      + FileModeYaml.route("batch", "pool", "batch-lora", -1) + FileModeYaml.SEPARATOR
      + FileModeYaml.loadableRoute("sql", "pool", "sql", "sql-v2", "hf://org/sql-v2");

  final TestGateway g = new TestGateway(3, ROUTES);

  @AfterEach
  void close() {
    g.close();
  }

  private Step start(String model, Map<String, String> headers, Set<String> subset) {
    return g.director().start(Contexts.arrived(g, model, headers, subset));
  }

  private static ErrorReply answer(Step step) {
    assertThat(step).isInstanceOf(Step.Answer.class);
    return ((Step.Answer) step).reply();
  }

  @Test
  void aModelNoRouteDeclaresIsAnswered404AndNothingElseRuns() {
    assertThat(answer(start("nobody", Map.of(), null))).extracting(ErrorReply::status, r -> r.code().wire())
        .containsExactly(404, "model_not_found");
    assertThat(g.pluginCalls("resolve", "weighted-targets")).isZero();
  }

  @Test
  void aHeaderThatCannotBeReadIsAnswered400NamingIt() {
    ErrorReply r = answer(start("chat-lora", Map.of(EppProtocol.SLO_TTFT_MS, "soon"), null));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.message()).contains(EppProtocol.SLO_TTFT_MS, "soon");
  }

  /** Issue 13, item 3: an objective that does not exist is not silently the route's default priority. */
  @Test
  void item3AnUnknownObjectiveIsAnswered400NamingIt() {
    g.allIdle(3, "chat-lora");
    ErrorReply r = answer(start("chat-lora", Map.of(EppProtocol.OBJECTIVE, "vip\nforged"), null));
    assertThat(r).extracting(ErrorReply::status, e -> e.code().wire()).containsExactly(400, "unknown_objective");
    assertThat(r.message()).contains(EppProtocol.OBJECTIVE, "'vip?forged'");
    assertThat(g.pluginCalls("resolve", "weighted-targets")).isZero();
  }

  /** Issue 32, item 1: a request that asks is explained, whatever its end; one in 16 of the others is. */
  @Test
  void aRequestThatAsksIsExplainedWhereverItEndsAndOneInSixteenOfTheOthers() {
    g.allIdle(3, "chat-lora");
    RequestContext asked = Contexts.arrived(g, "chat-lora", Map.of(DecisionLog.ASK_HEADER, "1"), null);
    g.director().start(asked); // the log's first decision is also the sampled one: start past it
    DecisionLog log = g.parts.decisions();
    for (int i = 0; i < 15; i++) {
      RequestContext other = Contexts.arrived(g, "chat-lora");
      g.director().start(other);
      other.lease().release(); // done: the pods stay idle, nothing waits
    }
    assertThat(log.recent(256, null)).as("the one that asked; the 15 after it are not sampled").hasSize(1);
    DecisionLog.Entry e = log.recent(1, null).getFirst();
    assertThat(e.requestId()).isEqualTo(asked.requestId());
    assertThat(e.outcome()).isEqualTo("routed");
    assertThat(e.route()).isEqualTo("default/chat");
    assertThat(e.target()).isEqualTo("chat-lora");
    assertThat(e.pod()).isEqualTo(asked.routed().decision().primary().address());
    assertThat(e.schedule().candidates()).hasSize(3);
    assertThat(e.schedule().scorers()).extracting(s -> s.scorer()).contains("lora-packing-scorer");

    RequestContext seventeenth = Contexts.arrived(g, "chat-lora");
    assertThat(g.director().start(seventeenth)).isInstanceOf(Step.Forward.class);
    assertThat(log.recent(256, null)).as("the 17th is sampled").hasSize(2);
    g.director().start(Contexts.arrived(g, "nobody", Map.of(DecisionLog.ASK_HEADER, "yes"), null));
    DecisionLog.Entry refused = log.recent(1, null).getFirst();
    assertThat(refused.outcome()).startsWith("404 model_not_found");
    assertThat(refused.route()).isNull();
    assertThat(refused.schedule()).as("it never reached scheduling").isNull();
    assertThat(log.recent(256, asked.requestId())).extracting(DecisionLog.Entry::requestId)
        .containsExactly(asked.requestId());
  }

  @Test
  void aRoutedRequestCountsInFlightOnItsPodAndEachPhaseRanOnce() {
    g.allIdle(3, "chat-lora");
    RequestContext ctx = Contexts.arrived(g, "chat-lora");
    Step step = g.director().start(ctx);

    assertThat(step).isInstanceOf(Step.Forward.class);
    assertThat(ctx.state()).isEqualTo(RequestState.ROUTED);
    String primary = ((Step.Forward) step).routed().decision().primary().address();
    assertThat(g.datastore().inFlight().load(primary).forModel("chat-lora")).isEqualTo(1);
    assertThat(((Step.Forward) step).routed().body()).isEqualTo(ctx.body().bytes());
    for (String[] plugin : List.of(new String[] {"resolve", "weighted-targets"},
        new String[] {"prepare", "objective-check-producer"}, new String[] {"admission", "flow-control"},
        new String[] {"load", "just-in-time-loader"},
        new String[] {"filter", "fresh-metrics-filter"}, new String[] {"scorer", "lora-packing-scorer"},
        new String[] {"picker", "max-score-picker"}, new String[] {"pre_request", "in-flight-lease"})) {
      assertThat(g.pluginCalls(plugin[0], plugin[1])).as(plugin[1]).isEqualTo(1);
    }
  }

  /**
   * Issue 28: reading the clock around every plugin cost more than the plugins it timed, so the sample is taken per
   * request: a request whose timing is not sampled reads no clock for any of its plugins, and the sampled one is timed
   * in every phase (not one plugin call in n, whichever request it belongs to).
   */
  @Test
  void oneRequestInTheSampleHasItsPluginsTimedInEveryPhaseAndTheOthersNone() {
    try (TestGateway sampled = new TestGateway(TestGateway.settings(), 3, ROUTES, new EppMetrics(2))) {
      sampled.allIdle(3, "chat-lora");
      String[][] plugins = {{"resolve", "weighted-targets"}, {"admission", "flow-control"},
          {"scorer", "lora-packing-scorer"}, {"picker", "max-score-picker"}, {"pre_request", "in-flight-lease"}};
      // the sampled first request is answered 404 before any plugin runs; the second is not sampled
      sampled.director().start(Contexts.arrived(sampled, "nobody", Map.of(), null));
      assertThat(sampled.director().start(Contexts.arrived(sampled, "chat-lora"))).isInstanceOf(Step.Forward.class);
      for (String[] plugin : plugins) {
        assertThat(sampled.pluginCalls(plugin[0], plugin[1])).as(plugin[1] + ", not sampled").isZero();
      }
      assertThat(sampled.director().start(Contexts.arrived(sampled, "chat-lora"))).isInstanceOf(Step.Forward.class);
      for (String[] plugin : plugins) {
        assertThat(sampled.pluginCalls(plugin[0], plugin[1])).as(plugin[1] + ", sampled").isEqualTo(1);
      }
    }
  }

  @Test
  void aSheddableRequestIsRefused429WhileItsPoolIsSaturated() {
    for (int i = 1; i <= 3; i++) {
      g.scrapes.report(address(i), 10, 4, 0.5, Set.of());
    }
    assertThat(answer(start("batch-lora", Map.of(), null))).extracting(ErrorReply::status, r -> r.code().wire())
        .containsExactly(429, "pool_saturated");
  }

  @Test
  void anyOtherRequestWaitsAndGoesOnAfterAdmissionWhenThePoolHasRoom() {
    for (int i = 1; i <= 3; i++) {
      g.scrapes.report(address(i), 10, 4, 0.5, Set.of("chat-lora"));
    }
    RequestContext ctx = Contexts.arrived(g, "chat-lora");
    Step step = g.director().start(ctx);
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(ctx.state()).isEqualTo(RequestState.QUEUED);
    CompletableFuture<Step.Resumption> resumption = ((Step.Wait) step).resumption();
    assertThat(resumption).isNotDone();

    g.allIdle(3, "chat-lora"); // fresh metrics: flow control dispatches on this thread
    assertThat(resumption).isCompletedWithValue(new Step.Resumption.Proceed(null));
    Step next = g.director().resume(ctx, resumption.join());

    assertThat(next).isInstanceOf(Step.Forward.class);
    assertThat(g.pluginCalls("resolve", "weighted-targets")).as("not resolved again").isEqualTo(1);
    assertThat(g.pluginCalls("admission", "flow-control")).as("not admitted again").isEqualTo(1);
    assertThat(g.pluginCalls("prepare", "objective-check-producer")).as("renewed once after the wait").isEqualTo(2);
  }

  @Test
  void anAdapterResidentNowhereIsLoadedWhileTheRequestWaitsThenItGoesWhereItWasLoaded() {
    g.allIdle(3);
    RequestContext ctx = Contexts.arrived(g, "sql");
    Step step = g.director().start(ctx);
    assertThat(ctx.state()).isEqualTo(RequestState.LOADING);
    assertThat(g.runtime.loads).hasSize(1);
    String loadedOn = g.runtime.loads.getFirst().substring("sql-v2@".length());

    g.runtime.finish("sql-v2", loadedOn);
    Step.Resumption r = ((Step.Wait) step).resumption().join();
    assertThat(r).isEqualTo(new Step.Resumption.Proceed(loadedOn));
    Step next = g.director().resume(ctx, r);

    assertThat(((Step.Forward) next).routed().decision().primary().address()).isEqualTo(loadedOn);
    assertThat(((Step.Forward) next).routed().body().toStringUtf8()).contains("\"model\":\"sql-v2\"");
    assertThat(g.pluginCalls("load", "just-in-time-loader")).as("not prepared again").isEqualTo(1);
  }

  @Test
  void aLoadThatFailsEverywhereIsAnswered503NamingTheAdapterAndWhy() {
    g.allIdle(3);
    RequestContext ctx = Contexts.arrived(g, "sql");
    Step step = g.director().start(ctx);
    for (int attempt = 0; attempt < 3; attempt++) {
      String on = g.runtime.loads.get(attempt).substring("sql-v2@".length());
      g.runtime.fail("sql-v2", on, "weights not found");
    }
    Step next = g.director().resume(ctx, ((Step.Wait) step).resumption().join());
    ErrorReply r = answer(next);
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.message()).contains("adapter 'sql-v2'", "weights not found");
  }

  @Test
  void aSubsetHintThatAllowsOnlyAPodWithoutTheAdapterLoadsItThereRatherThanCallingTheHintEmpty() {
    g.scrapes.report(address(1), 0, 0, 0.1, Set.of("sql-v2"));
    g.scrapes.report(address(2), 0, 0, 0.1, Set.of());
    RequestContext ctx = Contexts.arrived(g, "sql", Map.of(), Set.of(address(2)));
    Step step = g.director().start(ctx);
    assertThat(g.runtime.loads).containsExactly("sql-v2@" + address(2));
    g.runtime.finish("sql-v2", address(2));
    Step next = g.director().resume(ctx, ((Step.Wait) step).resumption().join());
    assertThat(((Step.Forward) next).routed().decision().destinationValue()).isEqualTo(address(2));
  }

  @Test
  void whatLeavesNoEndpointIsAnswered503WithTheFilterThatSaysWhy() {
    g.allIdle(3, "chat-lora");
    assertThat(answer(start("chat-lora", Map.of(), Set.of("10.9.9.9:1")))).extracting(ErrorReply::status,
        r -> r.code().wire()).containsExactly(503, "subset_mismatch");
    for (int i = 1; i <= 3; i++) {
      g.scrapes.fail(address(i));
    }
    ErrorReply stale = answer(start("chat-lora", Map.of(), null));
    assertThat(stale.code().wire()).isEqualTo("no_ready_endpoint");
    assertThat(stale.message()).contains("none of its 3 endpoints has fresh metrics");
  }

  @Test
  void aWaitThatEndsInARefusalIsAnsweredWithIt() {
    for (int i = 1; i <= 3; i++) {
      g.scrapes.report(address(i), 10, 4, 0.5, Set.of("chat-lora"));
    }
    RequestContext ctx = Contexts.arrived(g, "chat-lora");
    g.director().start(ctx);
    ErrorReply expired = ErrorReply.expired(java.time.Duration.ofSeconds(30), true);
    assertThat(answer(g.director().resume(ctx, new Step.Resumption.Refuse(expired)))).isEqualTo(expired);
  }
}
