package io.llmgw.picker;

/**
 * A monotonic nanosecond source for durations (request timing, plugin durations); wall-clock decisions (deadlines,
 * staleness, TTLs) take a {@link java.time.Clock}. Injected, so tests drive both.
 */
@FunctionalInterface
public interface Ticker {
  long nanos();

  static Ticker system() {
    return System::nanoTime;
  }
}
