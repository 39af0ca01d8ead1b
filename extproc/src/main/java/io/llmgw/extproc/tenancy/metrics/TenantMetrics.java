package io.llmgw.extproc.tenancy.metrics;

import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import io.llmgw.extproc.tenancy.controller.TenantEvents;
import io.llmgw.extproc.tenancy.controller.TenantRow;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Tenancy on the EPP's registry. The {@code tenant} label is a name the configuration gives (a TenantBudget, or a
 * tenant of the API keys file), else {@code other}: a trusted header may name anything, and labels must stay bounded.
 */
public final class TenantMetrics implements TenantEvents {
  static final String OTHER = "other";

  private final Predicate<String> configured;
  private final Counter admissions;
  private final Counter refusals;
  private final Counter tokens;
  private final Counter ignoredUsage;

  /** @param configured whether a tenant name comes from the configuration */
  public TenantMetrics(PrometheusRegistry registry, Predicate<String> configured) {
    this.configured = configured;
    admissions = Counter.builder().name("llmgw_tenant_admissions_total")
        .help("Requests with a tenant at its budget, by tenant and outcome (admitted, queued, demoted)")
        .labelNames("tenant", "outcome").register(registry);
    refusals = Counter.builder().name("llmgw_tenant_refusals_total")
        .help("Requests refused for their tenant, by tenant and reason (unauthenticated, route_not_allowed, "
            + "tokens_per_minute, tokens_per_day, concurrent_requests, exceeds_budget, queue_timeout)")
        .labelNames("tenant", "reason").register(registry);
    tokens = Counter.builder().name("llmgw_tenant_tokens_total")
        .help("Tokens tenants' requests used, by the pods' usage, by tenant and kind (prompt, completion)")
        .labelNames("tenant", "kind").register(registry);
    ignoredUsage = Counter.builder().name("llmgw_tenant_usage_ignored_total")
        .help("Responses whose usage could not be believed (negative, fractional, absurd): the reservation stood")
        .labelNames("tenant").register(registry);
  }

  /** Gauges read at scrape time: each budgeted tenant's spending against its limits. */
  public static void watch(PrometheusRegistry registry, TenantBudgets budgets) {
    GaugeWithCallback.builder().name("llmgw_tenant_budget_used_ratio")
        .help("Share of a tenant's token budget spent in the window (every replica's), by tenant and window "
            + "(minute, day)")
        .labelNames("tenant", "window").callback(cb -> {
          for (TenantRow r : budgets.rows().values()) {
            if (r.perMinute() != Long.MAX_VALUE) {
              cb.call(ratio(r.lastMinute(), r.perMinute()), r.tenant(), "minute");
            }
            if (r.perDay() != Long.MAX_VALUE) {
              cb.call(ratio(r.lastDay(), r.perDay()), r.tenant(), "day");
            }
          }
        }).register(registry);
    GaugeWithCallback.builder().name("llmgw_tenant_waiting_requests")
        .help("Requests waiting for their tenant's budget on this replica, by tenant").labelNames("tenant")
        .callback(cb -> budgets.rows().values().forEach(r -> cb.call(r.waiting(), r.tenant()))).register(registry);
  }

  /** Edits of the API keys file refused (the last good keys stayed), read at scrape time. */
  public static void watchKeys(PrometheusRegistry registry, LongSupplier refused) {
    CounterWithCallback.builder().name("llmgw_api_keys_refused_total")
        .help("Edits of the API keys file refused for a problem the log names; the last good keys stayed")
        .callback(cb -> cb.call(refused.getAsLong())).register(registry);
  }

  private static double ratio(long spent, long limit) {
    return limit == 0 ? (spent > 0 ? 1 : 0) : (double) spent / limit;
  }

  String label(String tenant) {
    return tenant != null && configured.test(tenant) ? tenant : OTHER;
  }

  @Override
  public void admission(String tenant, String outcome) {
    admissions.labelValues(label(tenant), outcome).inc();
  }

  @Override
  public void refused(String tenant, String reason) {
    refusals.labelValues(tenant == null ? "" : label(tenant), reason).inc();
  }

  @Override
  public void settled(String tenant, long promptTokens, long completionTokens) {
    String t = label(tenant);
    tokens.labelValues(t, "prompt").inc(promptTokens);
    tokens.labelValues(t, "completion").inc(completionTokens);
  }

  @Override
  public void usageIgnored(String tenant) {
    ignoredUsage.labelValues(label(tenant)).inc();
  }
}
