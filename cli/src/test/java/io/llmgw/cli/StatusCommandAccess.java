package io.llmgw.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code llmgw status} in-process for tests in other packages and returns what it printed. */
public final class StatusCommandAccess {
  private StatusCommandAccess() {}

  public static String run(String eppMetricsAddress) {
    return run(eppMetricsAddress, "127.0.0.1:1");
  }

  /** @param batchAddress the batch service's address, host:port */
  public static String run(String eppMetricsAddress, String batchAddress) {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new StatusCommand());
    cl.setOut(new PrintWriter(out));
    int code = cl.execute("--epp", eppMetricsAddress, "--batch", batchAddress);
    if (code != 0) {
      throw new IllegalStateException("llmgw status exited " + code);
    }
    return out.toString();
  }
}
