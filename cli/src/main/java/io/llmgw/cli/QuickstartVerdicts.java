package io.llmgw.cli;

import io.llmgw.extproc.objectives.controller.ObjectiveStatus;
import io.llmgw.extproc.observe.GatewayStatus;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the status table's verdicts mean, said where the quickstart prints them: a newcomer read "DESIRED 5 missed" for
 * a 4-pod pool as the gateway failing, on a machine too busy for its latencies to mean much, with the explanation only
 * in the docs.
 */
final class QuickstartVerdicts {
  private QuickstartVerdicts() {}

  static void explain(PrintStream out, GatewayStatus.Report report) {
    out.println(
        "  (DESIRED: the pods the capacity plan wants for the pool, its reason under CAPACITY PLAN; OBJECTIVES: "
            + "whether every route on the pool met its latency objective over its recent requests, ROUTE's ATTAINED "
            + "against its TARGET)");
    List<String> missed = new ArrayList<>();
    for (GatewayStatus.RouteStatus r : report.routes()) {
      for (ObjectiveStatus o : r.objectives()) {
        if (o.missed(report.requestsToJudge())) {
          missed.add(String.format(Locale.ROOT, "%s %s p%d %.0f ms: %.1f%% within, %.0f ms at the quantile",
              r.route().name(), o.type(), Math.round(o.quantile() * 100), o.limitMs(), o.attainment() * 100,
              o.observedMs()));
        }
      }
    }
    if (missed.isEmpty()) {
      return;
    }
    String busy = MachineLoad.busyNote();
    out.println("  missed: " + String.join("; ", missed) + ". "
        + (busy != null ? "Likely cause: " + busy + "."
            : "The plan asks one pod more than its arithmetic while an objective is missed, so DESIRED may exceed the "
                + "pods a quiet machine needs."));
  }
}
