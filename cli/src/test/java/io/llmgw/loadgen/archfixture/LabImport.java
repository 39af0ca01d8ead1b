package io.llmgw.loadgen.archfixture;

import io.llmgw.bench.ProcessCpu;

/** The shipped load generator using the lab, on purpose: ArchitectureRulesTest checks the rule sees it. */
public final class LabImport {
  private LabImport() {}

  static long cpu(String stat) {
    return ProcessCpu.millis(stat);
  }
}
