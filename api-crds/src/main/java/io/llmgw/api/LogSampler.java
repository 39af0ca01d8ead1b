package io.llmgw.api;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * At most one log line per kind of event per interval: a client that sends garbage by the thousand must not flood
 * the log or slow the request path with it (every such answer is counted in the metrics anyway). The lines left out are
 * counted and the next line says how many. Kinds come from a fixed set of constant strings (an answer's code, a gRPC
 * status name), so the map stays small and a call allocates nothing.
 */
public final class LogSampler {
  private final long intervalNanos;
  private final LongSupplier nanos;
  private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

  private static final class Window {
    volatile long loggedAt;
    final AtomicLong skipped = new AtomicLong();

    Window(long loggedAt) {
      this.loggedAt = loggedAt;
    }
  }

  public LogSampler(long interval, TimeUnit unit, LongSupplier nanos) {
    this.intervalNanos = unit.toNanos(interval);
    this.nanos = nanos;
  }

  public static LogSampler everyTenSeconds() {
    return new LogSampler(10, TimeUnit.SECONDS, System::nanoTime);
  }

  /**
   * Whether to log this event: -1 for no (it is counted), else how many of its kind were left out since the last line.
   */
  public long admit(String kind) {
    long now = nanos.getAsLong();
    Window w = windows.get(kind);
    if (w == null) {
      Window fresh = new Window(now);
      w = windows.putIfAbsent(kind, fresh);
      if (w == null) {
        return 0;
      }
    }
    synchronized (w) {
      if (now - w.loggedAt >= intervalNanos) {
        w.loggedAt = now;
        return w.skipped.getAndSet(0);
      }
    }
    w.skipped.incrementAndGet();
    return -1;
  }

  /** The suffix a sampled line carries: empty, or how many like it were left out. */
  public static String leftOut(long skipped) {
    return skipped > 0 ? " (and " + skipped + " more like it since the last such line, logged at DEBUG)" : "";
  }
}
