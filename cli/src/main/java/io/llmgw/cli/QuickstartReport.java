package io.llmgw.cli;

import io.llmgw.loadgen.ClassResult;
import io.llmgw.loadgen.PoolStats;
import io.llmgw.loadgen.RunResult;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The tables the quickstart prints after its demonstration workload. */
final class QuickstartReport {
  private QuickstartReport() {}

  /** @param sheddable models of sheddable routes (negative priority), whose 429s are the gateway doing its job */
  static void print(PrintStream out, RunResult r, PoolStats s, Set<String> sheddable) {
    int shed = 0;
    for (String model : sheddable) {
      ClassResult c = r.byClass().get(model);
      shed += c == null ? 0 : c.count("429");
    }
    int errors = r.errors() - shed;
    out.printf("%n  %d requests: %d ok, %d shed by design, %d errors %s; %.1f/s%n", r.sent(), r.ok(), shed, errors,
        r.outcomes(), r.throughput());
    if (shed > 0) {
      out.printf("  (shed: 429 to %s, routes of negative priority, which yield the pool to the others when it is "
          + "busy)%n", String.join(", ", sheddable));
    }
    out.printf("  time to first token p50 %.0f ms, p99 %.0f ms; time per output token p90 %.1f ms%n", r.ttftMs(50),
        r.ttftMs(99), r.tpotMs(90));
    String busy = MachineLoad.busyNote();
    if (busy != null) {
      out.println("  " + busy);
    }

    Map<String, long[]> totals = s.adapterUsesAndHits();
    List<String> adapters = List.copyOf(totals.keySet());
    StringBuilder header = new StringBuilder(String.format("%n  %-17s %8s", "requests run on", "all"));
    adapters.forEach(a -> header.append(String.format(" %14s", a)));
    out.println(header);
    s.requestsByPod().forEach((pod, n) -> {
      StringBuilder row = new StringBuilder(String.format("  %-17s %8d", pod, n));
      Map<String, long[]> uses = s.adapterUsesByPod().getOrDefault(pod, Map.of());
      adapters.forEach(a -> row.append(String.format(" %14d", uses.getOrDefault(a, new long[2])[0])));
      out.println(row);
    });
    StringBuilder hits = new StringBuilder(String.format("  %-17s %8s", "affinity hits", ""));
    adapters.forEach(a -> {
      long[] c = totals.get(a);
      hits.append(String.format(" %13.0f%%", c[0] == 0 ? 0.0 : 100.0 * c[1] / c[0]));
    });
    out.println(hits);
    out.printf("  (an affinity hit: the adapter already sat in a GPU slot of the pod the gateway picked; "
        + "%d adapter swaps in all)%n", s.swaps());
    out.printf("%n  ok by model asked for: %s%n", r.okByModel());
  }
}
