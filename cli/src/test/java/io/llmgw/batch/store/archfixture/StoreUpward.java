package io.llmgw.batch.store.archfixture;

import io.llmgw.batch.dispatch.Dispatcher;

/** The batch store using the dispatcher above it, on purpose: ArchitectureRulesTest checks the rule sees it. */
public final class StoreUpward {
  private StoreUpward() {}

  static Object dispatcher(Dispatcher d) {
    return d;
  }
}
