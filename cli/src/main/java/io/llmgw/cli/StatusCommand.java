package io.llmgw.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.api.HttpGet;
import io.llmgw.api.TokenFile;
import io.llmgw.api.tls.ClientTls;
import io.llmgw.batch.dispatch.Budget;
import io.llmgw.batch.dispatch.PoolBatchStatus;
import io.llmgw.extproc.capacity.core.Move;
import io.llmgw.extproc.capacity.core.Plan;
import io.llmgw.extproc.capacity.core.PoolPlan;
import io.llmgw.extproc.flow.controller.PoolScaling;
import io.llmgw.extproc.objectives.controller.ObjectiveStatus;
import io.llmgw.extproc.observe.GatewayStatus;
import io.llmgw.extproc.state.ConfigHistory;
import io.llmgw.extproc.tenancy.controller.TenantRow;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code llmgw status}: a running EPP's pools (saturation, waiting, desired pods) and routes (objective attainment). */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show a running EPP's pools and routes: saturation, requests waiting in flow control, desired pods, "
        + "and each route objective's attainment over its recent requests (the last 1,000 of the last 5 minutes); and the "
        + "batch service's queues and "
        + "dispatch budgets.")
public final class StatusCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--epp", defaultValue = "127.0.0.1:9090",
      description = "The EPP's metrics address, host:port, or https://host:port when it serves --metrics-tls "
          + "(default: ${DEFAULT-VALUE}).")
  String epp;

  @Option(names = "--ca-file", description = "With https: the authorities to verify the EPP's certificate against "
      + "(default: the JDK's).")
  Path caFile;

  @Option(names = "--insecure", description = "With https: accept any certificate (a self-signed EPP).")
  boolean insecure;

  @Option(names = "--token-file", description = "File holding the token the EPP's metrics port wants for reads (its "
      + "--read-token-file) (default: none).")
  Path tokenFile;

  @Option(names = "--batch", defaultValue = "127.0.0.1:8090",
      description = "The batch service's address, host:port; its queues and budgets are shown when it answers "
          + "(default: ${DEFAULT-VALUE}).")
  String batch;

  @Override
  public Integer call() throws Exception {
    GatewayStatus.Report report;
    List<PoolBatchStatus> batches = null;
    String base = epp.startsWith("https://") || epp.startsWith("http://") ? epp : "http://" + epp;
    SSLContext tls = null;
    if (base.startsWith("https://")) {
      try {
        tls = new ClientTls(caFile, null, null, insecure).https();
      } catch (IOException | IllegalArgumentException e) {
        spec.commandLine().getErr().println("llmgw status: " + e.getMessage());
        return 2;
      }
    }
    try {
      HttpGet.Answer r = HTTP.get(base + "/admin/status", tls,
          tokenFile == null ? null : "Bearer " + TokenFile.read(tokenFile));
      if (r.status() != 200) {
        spec.commandLine().getErr().println("llmgw status: " + epp + " answered " + r.status() + ": " + r.body());
        return 1;
      }
      report = notAnEpp(r.body()) ? null : JSON.readValue(r.body(), GatewayStatus.Report.class);
      if (report == null || report.pools() == null || report.routes() == null) {
        spec.commandLine().getErr().println("llmgw status: " + base + " is not an EPP's metrics port: its "
            + "/admin/status is not the gateway's report (another program holds the port? --epp names the EPP)");
        return 1;
      }
    } catch (IOException e) {
      spec.commandLine().getErr().println("llmgw status: cannot read " + base + "/admin/status (" + why(e, base)
          + "); is `./llmgw serve` running with --metrics-port there?");
      return 1;
    }
    try {
      HttpGet.Answer r = HTTP.get("http://" + batch + "/admin/batch/status", null, null);
      if (r.status() == 200) {
        batches = JSON.readValue(r.body(), new TypeReference<List<PoolBatchStatus>>() {});
      }
    } catch (IOException e) {
      // no batch service there: the section says so
    }
    spec.commandLine().getOut().println("EPP at " + base);
    spec.commandLine().getOut().println();
    print(report, spec.commandLine().getOut());
    printBatches(batches, batch, spec.commandLine().getOut());
    spec.commandLine().getOut().flush();
    return 0;
  }

  /** A report larger than 16 MiB is not one an EPP writes. */
  private static final HttpGet HTTP = new HttpGet(Duration.ofSeconds(5), 16 << 20);

  /** A body that cannot be the report: not a JSON object naming pools and routes. */
  private static boolean notAnEpp(String body) {
    String b = body.stripLeading();
    return !b.startsWith("{") || !b.contains("\"pools\"") || !b.contains("\"routes\"");
  }

  /** What went wrong, worded for a person: the JDK's connect failure has no message of its own. */
  static String why(IOException e, String address) {
    if (e instanceof ConnectException) {
      return "connection refused at " + address;
    }
    if (e instanceof SocketTimeoutException) {
      return "no answer from " + address + " within 5 s";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName() + " at " + address;
  }

  /** Each pool's batch queue and dispatch budget, or a line saying no batch service answered. */
  static void printBatches(List<PoolBatchStatus> batches, String address, PrintWriter out) {
    out.println();
    if (batches == null) {
      out.println("BATCH: no batch service answered at " + address + " (`./llmgw batch`; --batch names another)");
      return;
    }
    out.printf("%-28s %8s %10s %9s %8s %6s %6s %5s %7s %s%n", "BATCH POOL", "QUEUED", "OLDEST", "IN FLIGHT",
        "BUDGET D", "F_SYS", "F_EPP", "B", "MAX_SYS", "STATE");
    for (PoolBatchStatus p : batches) {
      Budget b = p.budget();
      out.printf(Locale.ROOT, "%-28s %8d %9.0fs %9d %8.2f %6s %6s %5.2f %7d %s%n", p.pool(), p.depth(),
          p.oldestAgeSeconds(), p.inFlight(), b.open() ? b.d() : 0.0, fraction(b.fSys()), fraction(b.fEpp()),
          b.baseline(), b.maxSys(), p.throttled() ? "throttled (429/503)" : b.open() ? "sending" : "closed");
    }
  }

  private static String fraction(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  static void print(GatewayStatus.Report report, PrintWriter out) {
    out.printf("%-28s %5s %10s %8s %8s %s%n", "POOL", "PODS", "SATURATION", "WAITING", "DESIRED", "OBJECTIVES");
    for (PoolScaling p : report.pools()) {
      out.printf(Locale.ROOT, "%-28s %5d %10.2f %8d %8d %s%n", p.pool(), p.pods(), p.saturation(), p.waiting(),
          p.desired(), p.objectivesMissed() ? "missed" : "ok");
    }
    printPlan(report.capacity(), out);
    out.println();
    out.printf("%-28s %-34s %8s %-19s %11s %9s %12s %s%n", "ROUTE", "MODEL", "PRIORITY", "OBJECTIVE", "TARGET",
        "ATTAINED", "AT QUANTILE", "OVER");
    for (GatewayStatus.RouteStatus r : report.routes()) {
      if (r.objectives().isEmpty()) {
        out.printf(Locale.ROOT, "%-28s %-34s %8d %s%n", r.route(), r.model(), r.priority(), "-");
      }
      for (ObjectiveStatus o : r.objectives()) {
        out.printf(Locale.ROOT, "%-28s %-34s %8d %-19s %11s %9s %12s %s%n", r.route(), r.model(), r.priority(),
            o.type(), "p" + Math.round(o.quantile() * 100) + " " + Math.round(o.limitMs()) + "ms",
            Double.isNaN(o.attainment()) ? "-" : String.format(Locale.ROOT, "%.1f%%", o.attainment() * 100),
            Double.isNaN(o.observedMs()) ? "-" : Math.round(o.observedMs()) + "ms",
            o.samples() == 0 ? "no recent requests" : o.samples() + " requests since "
                + Instant.ofEpochMilli(o.sinceEpochMillis()));
      }
    }
    List<TenantRow> tenants = report.tenants() == null ? List.of() : report.tenants();
    if (!tenants.isEmpty()) {
      out.println();
      out.printf("%-24s %22s %24s %12s %8s%n", "TENANT", "TOKENS LAST MINUTE", "TOKENS LAST DAY", "IN FLIGHT",
          "WAITING");
      for (TenantRow t : tenants) {
        out.printf(Locale.ROOT, "%-24s %22s %24s %12s %8d%n", t.tenant(), ofLimit(t.lastMinute(), t.perMinute()),
            ofLimit(t.lastDay(), t.perDay()), ofLimit(t.inFlight(), t.maxConcurrent() == Integer.MAX_VALUE
                ? Long.MAX_VALUE : t.maxConcurrent()),
            t.waiting());
      }
    }
    List<ConfigHistory.Change> changes = report.configuration() == null ? List.of() : report.configuration();
    if (!changes.isEmpty()) {
      ConfigHistory.Change last = changes.getFirst();
      out.println();
      out.println("CONFIGURATION at " + Instant.ofEpochMilli(last.atEpochMillis()) + ": "
          + (last.refused() == null ? "applied " + last.changed()
              : "refused, the one before stays in force: " + last.refused()));
    }
  }

  /** Each pool's planned pods and why, and the moves between a model-less route's variants. */
  static void printPlan(Plan plan, PrintWriter out) {
    if (plan == null || plan.pools().isEmpty()) {
      return;
    }
    out.println();
    out.printf(Locale.ROOT, "CAPACITY PLAN: pods cost %.2f/h now, %.2f/h as planned%n", plan.costPerHourNow(),
        plan.costPerHourPlanned());
    for (PoolPlan p : plan.pools()) {
      out.println("  " + p.pool() + ": " + p.reason());
    }
    for (Move m : plan.moves()) {
      out.printf(Locale.ROOT, "  moving %.0f %% of %s from %s to %s%s once %s has room%n", m.share() * 100, m.route(),
          m.from(), m.to(), Double.isNaN(m.savingPerHour()) ? ""
              : String.format(Locale.ROOT, " saves %.2f/h", m.savingPerHour()),
          m.to());
    }
  }

  /** {@code spent/limit}, or the figure alone when there is no limit. */
  private static String ofLimit(long spent, long limit) {
    return limit == Long.MAX_VALUE ? Long.toString(spent) : spent + "/" + limit;
  }
}
