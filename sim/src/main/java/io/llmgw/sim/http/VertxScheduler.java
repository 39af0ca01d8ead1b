package io.llmgw.sim.http;

import io.llmgw.sim.engine.Scheduler;
import io.vertx.core.Vertx;

/** Engine time on a Vert.x event loop: timers set from the pod's context run on that context (millisecond grain). */
record VertxScheduler(Vertx vertx) implements Scheduler {
  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void schedule(double delayMs, Runnable task) {
    vertx.setTimer(Math.max(1, Math.round(delayMs)), id -> task.run());
  }
}
