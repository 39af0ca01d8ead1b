package io.llmgw.extproc.tokens;

import io.llmgw.api.LogSampler;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A tokenizer's warnings that a request is matched approximately: at most one line per kind every ten seconds, saying
 * how many were left out.
 */
final class FallbackWarnings {
  private final Logger log;
  private final String source;
  private final LogSampler sampler = LogSampler.everyTenSeconds();

  FallbackWarnings(Logger log, String source) {
    this.log = log;
    this.source = source;
  }

  void warn(String kind, Supplier<String> message) {
    long skipped = sampler.admit(kind);
    if (skipped >= 0) {
      log.warn("{}: {}{}; the request is matched approximately", source, message.get(),
          skipped > 0 ? " (" + skipped + " such lines left out)" : "");
    }
  }
}
