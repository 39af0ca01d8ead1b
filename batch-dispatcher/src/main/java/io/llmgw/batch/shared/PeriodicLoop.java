package io.llmgw.batch.shared;

import org.slf4j.Logger;

/**
 * A pass run every period on a thread of its own, until closed. A pass that fails is logged and the next one runs; a
 * {@link #wake} runs the next pass at once, even one that came while a pass was running.
 */
public final class PeriodicLoop implements AutoCloseable {
  private final Object lock = new Object();
  private final Thread thread;
  private volatile boolean closed;
  private boolean woken;

  private PeriodicLoop(String name, long periodMillis, Runnable pass, Logger log) {
    thread = Thread.ofPlatform().name(name).daemon().unstarted(() -> {
      while (!closed) {
        try {
          pass.run();
        } catch (RuntimeException e) {
          log.warn("{}: one pass failed, trying again next period: {}", name, e.toString());
        }
        synchronized (lock) {
          try {
            if (!woken && !closed) {
              lock.wait(periodMillis); // the period, or a wake: not a synchronisation
            }
          } catch (InterruptedException e) {
            return;
          }
          woken = false;
        }
      }
    });
  }

  public static PeriodicLoop start(String name, long periodMillis, Runnable pass, Logger log) {
    PeriodicLoop loop = new PeriodicLoop(name, periodMillis, pass, log);
    loop.thread.start();
    return loop;
  }

  public void wake() {
    synchronized (lock) {
      woken = true;
      lock.notifyAll();
    }
  }

  public boolean closed() {
    return closed;
  }

  /** Stops after the pass under way (interrupting its waits), waiting for it at most 5 s. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
