package io.llmgw.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Warnings only, unless LLMGW_LOG_LEVEL asks otherwise. */
final class QuietLogs {
  private QuietLogs() {}

  static void apply() {
    if (System.getenv("LLMGW_LOG_LEVEL") == null
        && LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
      root.setLevel(Level.WARN);
    }
  }
}
