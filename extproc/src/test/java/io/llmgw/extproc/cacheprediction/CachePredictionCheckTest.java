package io.llmgw.extproc.cacheprediction;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.cacheprediction.core.CachePrediction;
import io.llmgw.extproc.cacheprediction.core.CachePredictionEvents;
import io.llmgw.extproc.cacheprediction.core.MissCause;
import io.llmgw.extproc.cacheprediction.plugins.CachePredictionCheck;
import io.llmgw.extproc.observe.AdminAccess;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.hooks.InFlightLease;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 4: each response's cached tokens as the engine reported them, against what the prefix index
 * predicted on the pod at the pick; nothing compared where either side says nothing.
 */
class CachePredictionCheckTest {
  final TestGateway g = new TestGateway(2, FileModeYaml.route("chat", "pool", "chat-lora", 5));
  final List<CachePrediction> seen = new ArrayList<>();
  final DecisionLog log = DecisionLog.of(1, Clock.systemUTC(), AdminAccess.of(null, null));

  @AfterEach
  void close() {
    g.close();
  }

  private EndpointState pod(int n) {
    g.allIdle(2, "chat-lora");
    return g.datastore().states(g.datastore().topology().routesByModel().get("chat-lora").pools()).get(n - 1);
  }

  @Test
  void aReportIsComparedWithThePredictedShareOfThePrompt() {
    CachePredictionCheck check = new CachePredictionCheck(true, seen::add, log, null);
    RequestContext ctx = Contexts.picked(g, "chat-lora", pod(1), 0.75);
    check.onDone(ctx, new Completion("200", null, new TokenUsage(1000, 5, 500)));
    assertThat(seen).singleElement().satisfies(p -> {
      assertThat(p.predictedTokens()).isEqualTo(750);
      assertThat(p.reportedTokens()).isEqualTo(500);
      assertThat(p.matchedTokens()).isEqualTo(500);
      assertThat(p.errorShare()).isEqualTo(0.25);
      assertThat(p.pool()).isNotBlank();
      assertThat(p.explain()).isEqualTo("predicted 750 cached; engine reported 500 (of 1,000 prompt tokens)");
    });
  }

  @Test
  void aPodsSilenceIsZeroCachedOnlyOnceItHasReportedItsCache() {
    CachePredictionCheck check = new CachePredictionCheck(true, seen::add, log, null);
    EndpointState first = pod(1);
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("200", null, new TokenUsage(100, 5)));
    assertThat(seen).as("never reported: vLLM without --enable-prompt-tokens-details").isEmpty();
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("200", null, new TokenUsage(100, 5, 40)));
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("200", null, new TokenUsage(100, 5)));
    assertThat(seen).extracting(CachePrediction::reportedTokens).containsExactly(40L, 0L);
  }

  @Test
  void nothingIsComparedWithoutAPredictionAPlausibleReportOrASuccess() {
    EndpointState first = pod(1);
    new CachePredictionCheck(false, seen::add, log, null).onDone(Contexts.picked(g, "chat-lora", first, 0.5),
        new Completion("200", null, new TokenUsage(100, 5, 40)));
    CachePredictionCheck check = new CachePredictionCheck(true, seen::add, log, null);
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("200", null, new TokenUsage(100, 5, 400)));
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("200", null, TokenUsage.MALFORMED));
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("cancelled", null, null));
    check.onDone(Contexts.picked(g, "chat-lora", first, 0.5), new Completion("500", null,
        new TokenUsage(100, 5, 40)));
    check.onDone(Contexts.resolved(g, "chat-lora"), new Completion("200", null, new TokenUsage(100, 5, 40)));
    RequestContext fellBack = Contexts.picked(g, "chat-lora", first, 0.5);
    InFlightLease lease = new InFlightLease(g.datastore().inFlight());
    lease.preRequest(fellBack, first);
    lease.onResponseHeaders(fellBack, pod(2).address());
    check.onDone(fellBack, new Completion("200", null, new TokenUsage(100, 5, 40)));
    assertThat(seen).as("no profile prediction, more cached than the prompt, garbage, no usage, a failure, no pick, "
        + "a fallback pod's report").isEmpty();
  }

  @Test
  void anExplainedDecisionGainsTheComparisonOnceTheResponseEnds() {
    CachePredictionCheck check = new CachePredictionCheck(true, seen::add, log, null);
    RequestContext ctx = Contexts.explained(Contexts.picked(g, "chat-lora", pod(2), 0.0));
    log.record(new DecisionLog.Entry(ctx.requestId(), 1, null, "chat-lora", "chat-lora", 5, 0, "routed", "pod",
        null));
    check.onDone(ctx, new Completion("200", null, new TokenUsage(64, 1, 32)));
    assertThat(log.recent(1, ctx.requestId()).getFirst().afterwards())
        .isEqualTo("predicted 0 cached; engine reported 32 (of 64 prompt tokens)");
    log.annotate("no-such-request", "ignored");
    assertThat(log.recent(5, null)).hasSize(1);
  }

  @Test
  void aRunOfMissesOnAPodIsToldWithTheCauseTheGatewayCanKnow() {
    List<MissCause> causes = new ArrayList<>();
    CachePredictionEvents events = new CachePredictionEvents() {
      @Override
      public void observed(CachePrediction p) {
        seen.add(p);
      }

      @Override
      public void missing(CachePrediction p, MissCause cause) {
        causes.add(cause);
      }
    };
    EngineBlockIndex blocks = new EngineBlockIndex();
    CachePredictionCheck check = new CachePredictionCheck(true, events, log, blocks);
    EndpointState first = pod(1);
    for (int i = 0; i < 2; i++) {
      check.onDone(Contexts.picked(g, "chat-lora", first, 0.9), new Completion("200", null, new TokenUsage(100, 1, 0)));
    }
    assertThat(causes).as("two misses are not yet a pattern").isEmpty();
    RequestContext third = Contexts.explained(Contexts.picked(g, "chat-lora", first, 0.9));
    log.record(new DecisionLog.Entry(third.requestId(), 1, null, "chat-lora", "chat-lora", 5, 0, "routed", "pod",
        null));
    check.onDone(third, new Completion("200", null, new TokenUsage(100, 1, 0)));
    assertThat(causes).containsExactly(MissCause.OVER_PREDICTED);
    assertThat(log.recent(1, third.requestId()).getFirst().afterwards()).contains("predicted 90 cached")
        .contains("the engine held less than predicted");

    check.onDone(Contexts.picked(g, "chat-lora", first, 0.9), new Completion("200", null, new TokenUsage(100, 1, 85)));
    blocks.lost(first.address());
    for (int i = 0; i < 3; i++) {
      check.onDone(Contexts.picked(g, "chat-lora", first, 0.0), new Completion("200", null, new TokenUsage(100, 1,
          80)));
    }
    assertThat(causes).as("a good prediction ends the run; lost events explain the next")
        .containsExactly(MissCause.OVER_PREDICTED, MissCause.EVENTS_LOST);
  }
}
