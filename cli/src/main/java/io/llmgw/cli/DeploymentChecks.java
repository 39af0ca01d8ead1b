package io.llmgw.cli;

import io.llmgw.api.GatewayConfig;
import io.llmgw.api.InferenceObjective;
import io.llmgw.api.InferencePool;
import io.llmgw.api.TenantBudget;
import io.llmgw.api.keys.ApiKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@code llmgw validate} finds only when it reads a deployment's files together: each file may be valid alone and
 * the whole still not work — batch lines naming an objective a pool does not define (every line a 400) or one that is
 * not sheddable (batches compete with interactive traffic), budgets for tenants no key names (nobody spends them), a
 * batch service with tenants but no key of its own to act for them (every line a 401).
 */
final class DeploymentChecks {
  private DeploymentChecks() {}

  /**
   * Problems: the deployment cannot work as written.
   *
   * @param batchObjective the objective the batch service names ({@code llmgw batch --objective}); null when the
   *     deployment has no batch service
   */
  static List<String> problems(List<GatewayConfig> gateways, List<ApiKeys> keys, String batchObjective) {
    List<String> out = new ArrayList<>();
    if (batchObjective == null) {
      return out;
    }
    if (gateways.isEmpty()) {
      out.add("--batch-objective checks the pools of a gateway file, and none was given");
    }
    for (GatewayConfig g : gateways) {
      for (InferencePool p : g.pools()) {
        InferenceObjective o = g.objectives().stream()
            .filter(x -> x.name().equals(batchObjective) && x.poolName().equals(p.name())
                && x.namespace().equals(p.namespace()))
            .findFirst().orElse(null);
        if (o == null) {
          out.add("pool " + p.name() + " defines no InferenceObjective '" + batchObjective + "' (the one the batch "
              + "service names): every batch line for its models would be refused 400 unknown_objective");
        } else if (o.priority() >= 0) {
          out.add("InferenceObjective '" + batchObjective + "' of pool " + p.name() + " has priority " + o.priority()
              + ": batch lines would compete with interactive traffic instead of filling what it leaves (use a "
              + "priority below 0)");
        }
      }
    }
    if (!keys.isEmpty() && keys.stream().noneMatch(ApiKeys::anyActsForOthers)) {
      out.add("no key in the keys file acts for others (actsForOthers: true): the batch service has no key of its own "
          + "to send tenants' lines with, and every line would be answered 401");
    }
    return out;
  }

  /** Notes: allowed, and probably not meant. */
  static List<String> notes(List<GatewayConfig> gateways, List<ApiKeys> keys) {
    List<String> out = new ArrayList<>();
    if (keys.isEmpty()) {
      return out;
    }
    Set<String> named = new TreeSet<>();
    keys.forEach(k -> named.addAll(k.tenants()));
    for (GatewayConfig g : gateways) {
      for (TenantBudget b : g.budgets()) {
        if (!named.contains(b.name())) {
          out.add("TenantBudget " + b.name() + " names a tenant no key in the keys file names: nobody can spend it "
              + "(unless a trusted --tenant-header names it)");
        }
      }
    }
    return out;
  }
}
