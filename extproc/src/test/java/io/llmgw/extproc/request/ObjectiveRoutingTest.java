package io.llmgw.extproc.request;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A route's time-to-first-token objective steers its requests away from a pod predicted to miss it. */
class ObjectiveRoutingTest {
  static final String ROUTES = """
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: chat}
      spec:
        backendRefs: [{name: pool}]
        adapter:
          name: base
          priority: 100
          objectives: [{type: TimeToFirstToken, latency: {value: 250ms, quantile: {numerator: 90}}}]
      ---
      apiVersion: inference.x-k8s.io/v1alpha1
      kind: LLMRoute
      metadata: {name: fast}
      spec:
        backendRefs: [{name: pool}]
        adapter:
          name: fast-lora
          priority: -2
          objectives: [{type: TimeToFirstToken, latency: {value: 200ms, quantile: {numerator: 99}}}]
          objectiveFallback: Shed
      """;

  final TestGateway g = new TestGateway(2, ROUTES);

  @AfterEach
  void close() {
    g.close();
  }

  @Test
  void aPodPredictedToMissTheObjectiveServesNoneOfTheRoutesRequests() {
    for (int i = 0; i < 30; i++) {
      g.parts.latency().estimator().observe(address(1), new LoadSnapshot(0, i % 2, 0), 20, 40, 10);
      g.parts.latency().estimator().observe(address(2), new LoadSnapshot(0, i % 2, 0), 20, 430, 200);
    }
    Map<String, Integer> served = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      g.scrapes.report(address(1), 0, i % 2, 0.1, Set.of());
      g.scrapes.report(address(2), 0, (i + 1) % 2, 0.1, Set.of());
      served.merge(routeOne(Contexts.arrived(g, "base")), 1, Integer::sum);
    }
    assertThat(served).containsOnlyKeys(address(1));
  }

  /**
   * Objectives are judged by the load the request itself would meet: an adapter that must wait for a batch slot is
   * predicted to wait, not to start as if it ran already. Before, admission asked the model about a neutral load
   * (adapter in the batch, nothing cached) and admitted a request the pod could not start in time.
   */
  @Test
  void anAdapterThatMustWaitForABatchSlotIsJudgedByThatWait() {
    for (int i = 0; i < 50; i++) { // learnt: 40 ms in the batch, a second when waiting for a slot
      g.parts.latency().estimator().observe(address(1), new LoadSnapshot(0, i % 5, 0, 0, LoadSnapshot.IN_BATCH), 20, 40,
          10);
      g.parts.latency().estimator().observe(address(1), new LoadSnapshot(0, 4, 0, 0, LoadSnapshot.NO_SLOT), 20, 1_000,
          10);
    }
    g.datastore().inFlight().acquire(address(1), "other"); // something of ours runs: the model is to be believed
    g.apply(1, ROUTES);
    Set<String> others = Set.of("a", "b", "c", "d");
    g.scrapes.reportBatch(address(1), others, Set.of("a", "b", "c", "d", "fast-lora"));
    Step waitsForSlot = g.director().start(Contexts.arrived(g, "fast-lora"));
    assertThat(waitsForSlot).isInstanceOfSatisfying(Step.Answer.class,
        a -> assertThat(a.reply().code().wire()).isEqualTo("objective_unattainable"));

    g.scrapes.reportBatch(address(1), Set.of("a", "b", "c", "fast-lora"), Set.of("a", "b", "c", "d", "fast-lora"));
    assertThat(routeOne(Contexts.arrived(g, "fast-lora"))).isEqualTo(address(1));
  }

  /** The pod the director routes the request to; the exchange then ends. */
  private String routeOne(RequestContext ctx) {
    Step step = g.director().start(ctx);
    assertThat(step).isInstanceOf(Step.Forward.class);
    String primary = ((Step.Forward) step).routed().decision().primary().address();
    ctx.moveTo(RequestState.DONE);
    g.director().done(ctx, new Completion("200", null, null));
    return primary;
  }

  /**
   * A request whose 250 ms budget was spent before it could be routed (a stalled machine: the stream opened, then
   * nothing ran for 300 ms) lost its objective, and went to either pod: the end-to-end test's stray picks. It must still
   * go to the pod predicted fastest.
   */
  @Test
  void aRequestThatWaitedPastItsBudgetStillGoesToTheFastestPod() {
    for (int i = 0; i < 30; i++) {
      g.parts.latency().estimator().observe(address(1), new LoadSnapshot(0, 0, 0), 20, 40, 10);
      g.parts.latency().estimator().observe(address(2), new LoadSnapshot(0, 0, 0), 20, 430, 200);
    }
    Map<String, Integer> served = new HashMap<>();
    for (int i = 0; i < 50; i++) {
      RequestContext ctx = Contexts.arrived(g, "base");
      g.clock.advance(java.time.Duration.ofMillis(300));
      g.allIdle(2);
      served.merge(routeOne(ctx), 1, Integer::sum);
    }
    assertThat(served).containsOnlyKeys(address(1));
  }
}
