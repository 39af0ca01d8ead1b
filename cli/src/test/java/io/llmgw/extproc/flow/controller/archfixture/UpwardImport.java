package io.llmgw.extproc.flow.controller.archfixture;

import io.llmgw.extproc.request.RequestContext;

/** Flow control reaching up into the request lifecycle, on purpose: ArchitectureRulesTest checks the rule sees it. */
public final class UpwardImport {
  private UpwardImport() {}

  static String id(RequestContext ctx) {
    return ctx.requestId();
  }
}
