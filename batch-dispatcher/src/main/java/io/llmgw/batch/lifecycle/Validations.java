package io.llmgw.batch.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Runs the validations of one lifecycle step side by side, within two bounds: at most {@code threads} at once, and at
 * most {@code byteBudget} bytes of input files being read at once (a validation keeps about its file's size in memory;
 * a file bigger than the whole budget runs alone). The step waits for all of them, so each step ends with every batch
 * it saw validated or failed, as it did one at a time.
 */
final class Validations implements AutoCloseable {
  private final ExecutorService workers;
  private final Semaphore kib;
  private final int budgetKib;

  Validations(int threads, long byteBudget) {
    this.workers = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("batch-validate-", 0).daemon()
        .factory());
    this.budgetKib = (int) Math.clamp(byteBudget / 1024, 1, Integer.MAX_VALUE);
    this.kib = new Semaphore(budgetKib);
  }

  /** One batch to validate: its input's size and the work. */
  record Job(long bytes, Runnable work) {}

  /** Runs every job and returns once all have ended; a job's failure is its own (it must catch and report it). */
  void runAll(List<Job> jobs) {
    List<Future<?>> running = new ArrayList<>();
    try {
      for (Job job : jobs) {
        int need = (int) Math.clamp(Math.ceilDiv(job.bytes(), 1024L), 1, budgetKib);
        kib.acquire(need);
        try {
          running.add(workers.submit(() -> {
            try {
              job.work().run();
            } finally {
              kib.release(need);
            }
          }));
        } catch (RuntimeException rejected) {
          kib.release(need);
          throw rejected;
        }
      }
      for (Future<?> f : running) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException("a validation failed: " + e.getCause(), e.getCause());
    }
  }

  @Override
  public void close() {
    workers.shutdownNow();
  }
}
