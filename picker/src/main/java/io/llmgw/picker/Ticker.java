package io.llmgw.picker;

import java.time.Clock;

/**
 * A monotonic nanosecond source for durations (request timing, plugin durations); wall-clock decisions (deadlines,
 * staleness, TTLs) take a {@link Clock}. Injected, so tests drive both.
 */
@FunctionalInterface
public interface Ticker {
  long nanos();

  static Ticker system() {
    return System::nanoTime;
  }
}
