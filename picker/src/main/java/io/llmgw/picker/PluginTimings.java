package io.llmgw.picker;

import java.util.function.LongConsumer;

/**
 * Where each plugin's running time goes (the EPP's per-plugin duration histogram). A sink is bound once per plugin
 * when the pipeline is assembled, so timing a call costs two ticker reads and one observation; and only one request in
 * {@link #sampleEvery} is timed, so the others read no clock for it.
 */
@FunctionalInterface
public interface PluginTimings {
  LongConsumer NOT_TIMED = nanos -> {};
  PluginTimings NONE = (extensionPoint, id) -> NOT_TIMED;

  /** @param extensionPoint {@code filter}, {@code scorer}, {@code picker}, {@code admission}, … */
  LongConsumer sink(String extensionPoint, PluginId id);

  /** One request in this many has its plugins timed (each sink observes every call it is given). */
  default int sampleEvery() {
    return 1;
  }
}
