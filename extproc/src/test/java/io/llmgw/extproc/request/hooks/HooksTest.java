package io.llmgw.extproc.request.hooks;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.flow.plugins.FlowSignal;
import io.llmgw.extproc.objectives.controller.RequestTiming;
import io.llmgw.extproc.objectives.plugins.LatencyObservation;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.EndpointState;
import io.llmgw.picker.latency.LoadSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The before-request and response hooks, each on its own. */
class HooksTest {
  final TestGateway g = new TestGateway(2, FileModeYaml.route("chat", "pool", "chat-lora", 5));

  @AfterEach
  void close() {
    g.close();
  }

  private EndpointState pod(int n) {
    g.allIdle(2, "chat-lora");
    return g.datastore().states(g.datastore().topology().routesByModel().get("chat-lora").pools()).get(n - 1);
  }

  @Test
  void theLeaseCountsTheRequestWhereItRunsAndIsReleasedOnceWhateverEndsIt() {
    InFlightLease lease = new InFlightLease(g.datastore().inFlight());
    EndpointState first = pod(1);
    RequestContext ctx = Contexts.picked(g, "chat-lora", first, 0.75);
    lease.preRequest(ctx, first);
    assertThat(g.datastore().inFlight().load(address(1)).forModel("chat-lora")).isEqualTo(1);
    assertThat(g.datastore().inFlight().load(address(1)).prefillTokens())
        .as("issue 29: the quarter of the prompt the pod was not believed to cache")
        .isEqualTo(Math.round(ctx.promptTokens() * 0.25)).isPositive();
    lease.onResponseHeaders(ctx, address(2)); // the proxy fell back to pod 2
    assertThat(g.datastore().inFlight().load(address(1)).total()).isZero();
    assertThat(g.datastore().inFlight().load(address(1)).prefillTokens()).isZero();
    assertThat(g.datastore().inFlight().load(address(2)).forModel("chat-lora")).isEqualTo(1);
    assertThat(g.datastore().inFlight().load(address(2)).prefillTokens())
        .isEqualTo(Math.round(ctx.promptTokens() * 0.25));
    lease.onFirstBytes(ctx);
    assertThat(g.datastore().inFlight().load(address(2)).prefillTokens()).isZero();
    assertThat(g.datastore().inFlight().load(address(2)).total()).isEqualTo(1);
    lease.onDone(ctx, new Completion("200", null, null));
    lease.onDone(ctx, new Completion("cancelled", null, null));
    assertThat(g.datastore().inFlight().load(address(2)).total()).isZero();
  }

  @Test
  void usageMarksTheTargetUsedOnItsPod() {
    new AdapterUsage(g.parts.adapters().usage()).preRequest(Contexts.resolved(g, "chat-lora"), pod(2));
    assertThat(g.parts.adapters().usage().uses("chat-lora")).isEqualTo(1);
    assertThat(g.parts.adapters().usage().lastUsed("chat-lora")).isEqualTo(g.clock.instant());
  }

  @Test
  void latencyIsLearntOnlyFromResponsesObservedWhole() {
    LatencyObservation observe = new LatencyObservation(g.parts.latency());
    RequestContext ctx = Contexts.resolved(g, "chat-lora");
    observe.onDone(ctx, new Completion("503", null, null));
    assertThat(g.parts.latency().estimator().predict(address(1), new LoadSnapshot(0, 0, 0), 10).ttftMs()).isNaN();
    assertThat(g.parts.latency().estimator().expectedOutput("chat-lora", 0, 128)).isEqualTo(128);
    RequestTiming t = new RequestTiming(ctx.route().route(), address(1), new LoadSnapshot(0, 0, 0), 10, 300, 250, 20,
        "chat-lora", 40);
    for (int i = 0; i < 30; i++) {
      observe.onDone(ctx, new Completion("200", t, null));
    }
    assertThat(g.parts.latency().estimator().predict(address(1), new LoadSnapshot(0, 0, 0), 10).ttftMs())
        .isBetween(240.0, 260.0);
    assertThat(g.parts.latency().estimator().expectedOutput("chat-lora", 0, 128))
        .as("issue 17: the model's recent output length").isEqualTo(40.0);
    assertThat(g.parts.latency().estimator().expectedOutput("chat-lora", 16, 128)).as("capped by max_tokens")
        .isEqualTo(16.0);
  }

  @Test
  void flowControlHearsOnlyOfRequestsThatHeldAPod() {
    List<Integer> signals = new java.util.ArrayList<>();
    var flow = new io.llmgw.extproc.flow.controller.FlowControl(TestGateway.settings().flow(),
        TestGateway.settings().saturation().detector(g.clock), g.datastore(), g.clock, r -> {
          signals.add(1);
          r.run(); // a dispatch pass: the pool is saturated, so nothing leaves
        }, null,
        (pool, priority, outcome, waited) -> {});
    g.scrapes.report(address(1), 10, 4, 0.5, Set.of());
    g.scrapes.report(address(2), 10, 4, 0.5, Set.of());
    RequestContext queued = Contexts.resolved(g, "chat-lora");
    flow.enqueue(queued.choice().pools(), 5, "f", 1, 1, 10, 0, s -> true); // someone waits: signals now matter
    signals.clear();
    FlowSignal hook = new FlowSignal(flow, g.datastore());
    RequestContext answered = Contexts.resolved(g, "chat-lora");
    hook.onDone(answered, new Completion("404", null, null));
    assertThat(signals).isEmpty();
    RequestContext routed = Contexts.resolved(g, "chat-lora");
    routed.holdLease(g.datastore().inFlight().acquire(address(1), "chat-lora"));
    hook.onDone(routed, new Completion("200", null, null));
    assertThat(signals).hasSize(1);
  }

  @Test
  void requestsAreCountedOnceWithLabelsFromTheConfigurationNeverFromTheClient() {
    RequestMetrics metrics = new RequestMetrics(g.parts.metrics());
    RequestContext unknown = Contexts.arrived(g, "client-garbage-" + "x".repeat(40));
    metrics.onDone(unknown, new Completion("404", null, null));
    RequestContext routed = Contexts.resolved(g, "chat-lora");
    routed.holdLease(g.datastore().inFlight().acquire(address(1), "chat-lora"));
    metrics.onDone(routed, new Completion("200", null, new TokenUsage(100, 20)));
    CounterSnapshot requests = counter("llmgw_requests");
    assertThat(requests.getDataPoints()).extracting(d -> d.getLabels().get("model") + "|"
        + d.getLabels().get("target") + "|" + d.getLabels().get("priority") + "|" + d.getLabels().get("code"))
        .containsExactlyInAnyOrder("|||404", "chat-lora|chat-lora|5|200");
    assertThat(counter("llmgw_tokens").getDataPoints()).hasSize(2);
  }

  /** Issue 53: failures counted once more by why, for the status page: the EPP's own code, the pod's, a cut stream. */
  @Test
  void failuresAreCountedByReasonAndSuccessesAreNot() {
    RequestMetrics metrics = new RequestMetrics(g.parts.metrics());
    metrics.onDone(Contexts.arrived(g, "nope"), new Completion("404", null, null, "model_not_found"));
    metrics.onDone(Contexts.resolved(g, "chat-lora"), new Completion("500", null, null));
    metrics.onDone(Contexts.resolved(g, "chat-lora"), new Completion("cancelled", null, null));
    metrics.onDone(Contexts.resolved(g, "chat-lora"), new Completion("", null, null));
    metrics.onDone(Contexts.resolved(g, "chat-lora"), new Completion("200", null, null));
    assertThat(counter("llmgw_request_failures").getDataPoints()).extracting(d -> d.getLabels().get("model") + "|"
        + d.getLabels().get("code") + "|" + d.getLabels().get("reason") + "|" + (long) d.getValue())
        .containsExactlyInAnyOrder("|404|model_not_found|1", "chat-lora|500|from_pod|1",
            "chat-lora|cancelled|ended_early|1", "chat-lora||ended_early|1");
  }

  private CounterSnapshot counter(String name) {
    return (CounterSnapshot) g.parts.metrics().registry().scrape().stream()
        .filter(m -> m.getMetadata().getName().equals(name)).findFirst().orElseThrow();
  }
}
