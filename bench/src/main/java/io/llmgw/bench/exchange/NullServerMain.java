package io.llmgw.bench.exchange;

import io.llmgw.bench.NullExtProc;

/**
 * The null ext_proc server in a process of its own, so that its CPU can be read from {@code /proc} apart from the
 * client's. Usage: DESTINATION. Prints {@code READY <port>} once it listens, then serves until killed.
 */
public final class NullServerMain {
  private NullServerMain() {}

  public static void main(String[] args) throws Exception {
    // as llmgw serve runs (its Main): the baseline pays for nothing the EPP is spared
    System.setProperty("io.grpc.netty.shaded.io.netty.leakDetection.level", "disabled");
    NullExtProc server = new NullExtProc(args[0]);
    System.out.println("READY " + server.port());
    System.out.flush();
    Thread.currentThread().join();
  }
}
