package io.llmgw.sim.engine;

/**
 * Time for one engine. Every call on an engine, and every task scheduled here, runs on one thread, so the engine needs
 * no locks; tests drive it with a manual scheduler and virtual time.
 */
public interface Scheduler {
  long nanoTime();

  void schedule(double delayMs, Runnable task);
}
