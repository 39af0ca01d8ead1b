package io.llmgw.extproc.tenancy.core.archfixture;

import io.llmgw.extproc.tenancy.controller.TenantBudgets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Breaks a capability core's purity on purpose (a file read, the clock, its own controller): ArchitectureRulesTest
 * checks that the rule sees it. Never used.
 */
public final class ImpureLedger {
  private ImpureLedger() {}

  static String read() throws Exception {
    return Files.readString(Path.of("ledger"));
  }

  static long now() {
    return System.nanoTime();
  }

  static Object budgets(TenantBudgets budgets) {
    return budgets;
  }
}
