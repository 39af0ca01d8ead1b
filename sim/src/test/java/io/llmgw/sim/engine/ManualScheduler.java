package io.llmgw.sim.engine;

import java.util.PriorityQueue;

/** Virtual time: tasks run in due order when the test advances the clock. */
final class ManualScheduler implements Scheduler {
  private record Task(long due, long order, Runnable run) {}

  private final PriorityQueue<Task> tasks = new PriorityQueue<>(
      (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.order, b.order));
  private long now;
  private long order;

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public void schedule(double delayMs, Runnable task) {
    tasks.add(new Task(now + Math.round(delayMs * 1_000_000), order++, task));
  }

  double nowMs() {
    return now / 1e6;
  }

  /** Runs every task due up to {@code now + ms}. */
  void advance(double ms) {
    long until = now + Math.round(ms * 1_000_000);
    while (!tasks.isEmpty() && tasks.peek().due <= until) {
      Task t = tasks.poll();
      now = t.due;
      t.run.run();
    }
    now = until;
  }

  /** Runs until nothing is scheduled; bounded so that a runaway engine fails the test instead of hanging it. */
  void runUntilIdle() {
    for (int i = 0; i < 1_000_000 && !tasks.isEmpty(); i++) {
      Task t = tasks.poll();
      now = t.due;
      t.run.run();
    }
    if (!tasks.isEmpty()) {
      throw new AssertionError("the engine never went idle");
    }
  }
}
