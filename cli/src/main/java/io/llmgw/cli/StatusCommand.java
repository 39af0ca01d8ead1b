package io.llmgw.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.extproc.flow.PoolScaling;
import io.llmgw.extproc.latency.ObjectiveStatus;
import io.llmgw.extproc.observe.GatewayStatus;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code llmgw status}: a running EPP's pools (saturation, waiting, desired pods) and routes (objective attainment). */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show a running EPP's pools and routes: saturation, requests waiting in flow control, desired pods, "
        + "and each route objective's attainment over its last 1,000 requests.")
public final class StatusCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--epp", defaultValue = "127.0.0.1:9090",
      description = "The EPP's metrics address, host:port (default: ${DEFAULT-VALUE}).")
  String epp;

  @Override
  public Integer call() throws Exception {
    GatewayStatus.Report report;
    try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://" + epp + "/admin/status"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        System.err.println("llmgw status: " + epp + " answered " + r.statusCode() + ": " + r.body());
        return 1;
      }
      report = JSON.readValue(r.body(), GatewayStatus.Report.class);
    } catch (java.io.IOException e) {
      System.err.println("llmgw status: cannot read http://" + epp + "/admin/status (" + e.getMessage()
          + "); is `./llmgw serve` running with --metrics-port there?");
      return 1;
    }
    print(report, spec.commandLine().getOut());
    spec.commandLine().getOut().flush();
    return 0;
  }

  static void print(GatewayStatus.Report report, PrintWriter out) {
    out.printf("%-28s %5s %10s %8s %8s %s%n", "POOL", "PODS", "SATURATION", "WAITING", "DESIRED", "OBJECTIVES");
    for (PoolScaling p : report.pools()) {
      out.printf(Locale.ROOT, "%-28s %5d %10.2f %8d %8d %s%n", p.pool(), p.pods(), p.saturation(), p.waiting(),
          p.desired(), p.objectivesMissed() ? "missed" : "ok");
    }
    out.println();
    out.printf("%-28s %-34s %8s %-19s %11s %9s %12s%n", "ROUTE", "MODEL", "PRIORITY", "OBJECTIVE", "TARGET",
        "ATTAINED", "AT QUANTILE");
    for (GatewayStatus.RouteStatus r : report.routes()) {
      if (r.objectives().isEmpty()) {
        out.printf(Locale.ROOT, "%-28s %-34s %8d %s%n", r.route(), r.model(), r.priority(), "-");
      }
      for (ObjectiveStatus o : r.objectives()) {
        out.printf(Locale.ROOT, "%-28s %-34s %8d %-19s %11s %9s %12s%n", r.route(), r.model(), r.priority(),
            o.type(), "p" + Math.round(o.quantile() * 100) + " " + Math.round(o.limitMs()) + "ms",
            Double.isNaN(o.attainment()) ? "-" : String.format(Locale.ROOT, "%.1f%%", o.attainment() * 100),
            Double.isNaN(o.observedMs()) ? "-" : Math.round(o.observedMs()) + "ms");
      }
    }
  }
}
