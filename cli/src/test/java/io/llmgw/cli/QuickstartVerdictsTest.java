package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.RouteKey;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.objectives.controller.ObjectiveStatus;
import io.llmgw.extproc.observe.GatewayStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 53: the quickstart explains its verdicts where it prints them, naming the route that missed and how. */
class QuickstartVerdictsTest {
  private static String explained(ObjectiveStatus... objectives) {
    RouteKey sql = new RouteKey("default", "sql");
    GatewayStatus.Report report = new GatewayStatus.Report(List.of(), List.of(new GatewayStatus.RouteStatus(sql,
        "sql-lora", 100, List.of(), List.of(objectives))), List.of(), List.of(), List.of(), Plan.EMPTY, 10, null);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    QuickstartVerdicts.explain(new PrintStream(bytes, true, StandardCharsets.UTF_8), report);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theVerdictsAreExplainedAndAMissNamesItsRouteAndWhatItSaw() {
    RouteKey sql = new RouteKey("default", "sql");
    String met = explained(new ObjectiveStatus(sql, "TimeToFirstToken", 1000, 0.99, 1.0, 400, 40, 0, 40, 40));
    assertThat(met).contains("DESIRED: the pods the capacity plan wants", "OBJECTIVES:").doesNotContain("missed:");
    String fewRequests = explained(new ObjectiveStatus(sql, "TimeToFirstToken", 1000, 0.99, 0.5, 1400, 4, 0, 2, 4));
    assertThat(fewRequests).as("too few requests to judge: not a miss").doesNotContain("missed:");
    String missed = explained(new ObjectiveStatus(sql, "TimeToFirstToken", 1000, 0.99, 0.91, 1450, 40, 0, 36, 40));
    assertThat(missed).contains("missed: sql TimeToFirstToken p99 1000 ms: 91.0% within, 1450 ms at the quantile");
    assertThat(missed).containsAnyOf("Likely cause: the machine was busy", "one pod more than its arithmetic");
  }
}
