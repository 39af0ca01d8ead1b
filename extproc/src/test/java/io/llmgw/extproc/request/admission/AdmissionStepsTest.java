package io.llmgw.extproc.request.admission;

import static io.llmgw.extproc.testing.TestGateway.address;
import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.flow.plugins.FlowControlAdmission;
import io.llmgw.extproc.flow.plugins.SaturationShedding;
import io.llmgw.extproc.objectives.plugins.ObjectiveShedding;
import io.llmgw.extproc.request.Contexts;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.testing.TestGateway;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Shedding, objective shedding and flow control, each asked on its own with the facts admission gathers. */
class AdmissionStepsTest {
  static final String ROUTES = FileModeYaml.route("chat", "pool", "chat-lora", 5) + FileModeYaml.SEPARATOR
      + FileModeYaml.route("batch", "pool", "batch-lora", -1) + FileModeYaml.SEPARATOR + """
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

  private AdmissionFacts facts(RequestContext ctx) {
    return new AdmissionFacts(ctx, g.datastore().states(ctx.choice().pools()),
        TestGateway.settings().saturation().detector(g.clock), g.parts.flow());
  }

  private void saturate() {
    g.scrapes.report(address(1), 10, 4, 0.5, Set.of());
    g.scrapes.report(address(2), 10, 4, 0.5, Set.of());
  }

  @Test
  void sheddingRefusesOnlySheddableRequestsAndOnlyWithoutRoom() {
    SaturationShedding shedding = new SaturationShedding();
    g.allIdle(2);
    RequestContext batch = Contexts.resolved(g, "batch-lora");
    assertThat(shedding.admit(batch, facts(batch))).isEqualTo(AdmissionStep.Verdict.ADMIT);
    saturate();
    assertThat(shedding.admit(batch, facts(batch))).isInstanceOfSatisfying(AdmissionStep.Verdict.Refuse.class,
        r -> assertThat(r.reply().code().wire()).isEqualTo("pool_saturated"));
    RequestContext chat = Contexts.resolved(g, "chat-lora");
    assertThat(shedding.admit(chat, facts(chat))).isEqualTo(AdmissionStep.Verdict.ADMIT);
  }

  @Test
  void flowControlQueuesWithoutRoomAndTheTicketLeavesWhenCancelled() {
    FlowControlAdmission flow = new FlowControlAdmission(g.parts.flow(), g.clock, g.datastore());
    g.allIdle(2);
    RequestContext chat = Contexts.resolved(g, "chat-lora");
    assertThat(flow.admit(chat, facts(chat))).isEqualTo(AdmissionStep.Verdict.ADMIT);
    saturate();
    AdmissionStep.Verdict v = flow.admit(chat, facts(chat));
    assertThat(v).isInstanceOf(AdmissionStep.Verdict.Queue.class);
    assertThat(g.parts.flow().waiting(chat.choice().pools().getFirst().key())).isEqualTo(1);
    ((AdmissionStep.Verdict.Queue) v).until().cancel().run();
    assertThat(g.parts.flow().waiting(chat.choice().pools().getFirst().key())).isZero();
  }

  @Test
  void withPodsPredictedTooSlowASheddableRouteThatShedsIsRefusedAndOthersWait() {
    g.allIdle(2);
    for (int i = 0; i < 50; i++) { // both pods learnt to answer in about a second
      g.parts.latency().estimator().observe(address(1), new LoadSnapshot(0, 0, 0), 10, 1_000, 10);
      g.parts.latency().estimator().observe(address(2), new LoadSnapshot(0, 0, 0), 10, 1_000, 10);
    }
    g.datastore().inFlight().acquire(address(1), "other"); // something of ours runs: the model is to be believed
    RequestContext fast = Contexts.resolved(g, "fast-lora");
    Contexts.checkObjective(g, fast);
    AdmissionFacts facts = facts(fast);
    assertThat(facts.objectiveUnmet()).isTrue();
    assertThat(new ObjectiveShedding().admit(fast, facts)).isInstanceOfSatisfying(
        AdmissionStep.Verdict.Refuse.class,
        r -> assertThat(r.reply().code().wire()).isEqualTo("objective_unattainable"));
    RequestContext chat = Contexts.resolved(g, "chat-lora");
    assertThat(new ObjectiveShedding().admit(chat, facts(chat))).isEqualTo(AdmissionStep.Verdict.ADMIT);
  }

  @Test
  void factsAreAskedLazilyAndTheCheapQuestionComesFirst() {
    saturate();
    RequestContext chat = Contexts.resolved(g, "chat-lora");
    AdmissionFacts facts = facts(chat);
    assertThat(facts.othersWaiting()).isFalse();
    assertThat(facts.saturated()).isTrue();
    assertThat(facts.noRoom()).isTrue();
    assertThat(facts.anyReachable()).isTrue();
    assertThat(facts.objectiveUnmet()).as("no limits, nothing to miss").isFalse();
  }
}
