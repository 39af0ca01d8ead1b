package io.llmgw.extproc.control.cluster;

import io.llmgw.api.TenantBudget;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TenantBudget that names an LLMRoute its namespace does not have. A file naming one is refused; in a cluster the
 * objects come and go one by one, so the budget is kept (its tenant may use only the routes that exist) and the route
 * it names in vain is said once, in one ERROR line, until it exists or the budget stops naming it (issue 53).
 */
final class BudgetRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(BudgetRoutes.class);

  /** "namespace/budget → route" already said, so that each rebuild of the configuration does not say it again. */
  private final Set<String> said = new HashSet<>();

  /** Says each budget's route that {@code routes} lacks, once until it is there again. */
  synchronized void check(List<TenantBudget> budgets, Set<Kinds.Key> routes) {
    Set<String> missing = new HashSet<>();
    for (TenantBudget b : budgets) {
      for (String route : b.routes() == null ? List.<String>of() : b.routes()) {
        if (!routes.contains(Kinds.key(b.namespace(), route))) {
          String pair = b.namespace() + "/" + b.name() + " → " + route;
          missing.add(pair);
          if (said.add(pair)) {
            LOG.error("TenantBudget {}/{} names LLMRoute '{}', which namespace {} does not have: create the route or "
                + "take it out of the budget's spec.routes", b.namespace(), b.name(), route, b.namespace());
          }
        }
      }
    }
    said.retainAll(missing);
  }
}
