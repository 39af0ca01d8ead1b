package io.llmgw.sim.engine;

import java.util.Locale;

/** The answer to a load or unload call, with vLLM's status codes and plain-text messages. */
public record LoadResult(int status, String message) {
  /**
   * Adapters whose path says so fail: a path containing {@code missing} is not found (404), one containing
   * {@code fail} breaks while loading (500). Everything else loads.
   */
  static LoadResult forPath(String name, String path) {
    String p = path.toLowerCase(Locale.ROOT);
    if (p.contains("missing")) {
      return new LoadResult(404, "No adapter found for " + path);
    }
    if (p.contains("fail")) {
      return new LoadResult(500, "Loading lora " + name + " failed: the adapter at " + path + " is corrupt");
    }
    return new LoadResult(200, "Success: LoRA adapter '" + name + "' added successfully.");
  }
}
