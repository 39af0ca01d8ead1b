package io.llmgw.extproc;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The EPP's own threads are daemons: a replica that failed to stop cleanly must not keep its JVM alive. */
final class DaemonThreads {
  private DaemonThreads() {}

  static ScheduledExecutorService scheduler(String name) {
    return Executors.newScheduledThreadPool(1, r -> daemon(r, name));
  }

  static ExecutorService single(String name) {
    return Executors.newSingleThreadExecutor(r -> daemon(r, name));
  }

  static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
