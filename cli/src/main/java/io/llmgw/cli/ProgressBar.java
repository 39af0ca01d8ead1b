package io.llmgw.cli;

import java.io.PrintStream;

/** A one-line progress bar, redrawn only when it changes. */
final class ProgressBar {
  private static final int WIDTH = 40;
  private final PrintStream out;
  private final int total;
  private int drawn = -1;

  ProgressBar(PrintStream out, int total) {
    this.out = out;
    this.total = total;
  }

  void update(int done) {
    int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
    if (filled == drawn && done != total) {
      return;
    }
    drawn = filled;
    out.print("\r  [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + done + "/" + total);
    if (done == total) {
      out.println();
    }
    out.flush();
  }
}
