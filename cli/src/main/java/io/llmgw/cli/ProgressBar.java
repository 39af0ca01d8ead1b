package io.llmgw.cli;

import java.io.PrintStream;

/**
 * A one-line progress bar, redrawn only when it changes; only on a terminal: into a file or a pipe, carriage returns
 * would leave a line per redraw, so there it prints one line when done.
 */
final class ProgressBar {
  private static final int WIDTH = 40;
  private final PrintStream out;
  private final int total;
  private final boolean terminal;
  private int drawn = -1;

  ProgressBar(PrintStream out, int total, boolean terminal) {
    this.out = out;
    this.total = total;
    this.terminal = terminal;
  }

  void update(int done) {
    if (!terminal) {
      if (done == total) {
        out.println("  " + done + "/" + total + " sent");
      }
      return;
    }
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
