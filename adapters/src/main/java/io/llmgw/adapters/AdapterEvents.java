package io.llmgw.adapters;

import java.time.Duration;

/** What the adapter lifecycle reports to metrics. Every method has a no-op default. */
public interface AdapterEvents {
  AdapterEvents NONE = new AdapterEvents() {};

  /** A request found its adapter resident nowhere and started (or joined) a load. */
  default void cacheMiss(String adapter) {}

  default void loaded(String adapter, String address, Duration took) {}

  default void loadFailed(String adapter, String address, String reason) {}

  default void unloaded(String adapter, String address) {}
}
