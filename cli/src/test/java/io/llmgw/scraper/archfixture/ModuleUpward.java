package io.llmgw.scraper.archfixture;

import io.llmgw.extproc.state.Datastore;

/** The scraper module using the EPP above it, on purpose: ArchitectureRulesTest checks the rule sees it. */
public final class ModuleUpward {
  private ModuleUpward() {}

  static Object topology(Datastore d) {
    return d.topology();
  }
}
