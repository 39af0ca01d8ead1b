package io.llmgw.batch.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Many batches validate side by side (issue 27, item 6), within a thread bound and a byte budget. */
class ValidationsTest {

  @Test
  void smallFilesValidateFourAtATimeAndTheStepWaitsForAll() {
    CyclicBarrier fourTogether = new CyclicBarrier(4);
    AtomicInteger done = new AtomicInteger();
    List<Validations.Job> jobs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      jobs.add(new Validations.Job(1_000, () -> {
        try {
          fourTogether.await(20, TimeUnit.SECONDS); // only passes when four run at once
          done.incrementAndGet();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    try (Validations v = new Validations(4, 1 << 20)) {
      v.runAll(jobs);
    }
    assertThat(done).hasValue(8);
  }

  @Test
  void filesThatTogetherExceedTheBudgetTakeTurns() throws Exception {
    CountDownLatch firstMayEnd = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    List<Validations.Job> jobs = List.of(
        new Validations.Job(700_000, () -> {
          started.incrementAndGet();
          try {
            firstMayEnd.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }),
        new Validations.Job(5_000_000, started::incrementAndGet)); // bigger than the whole budget: runs alone
    try (Validations v = new Validations(4, 1_000_000)) {
      Thread step = Thread.ofPlatform().start(() -> v.runAll(jobs));
      // the step parks on the byte budget (not on the first job's end, where it would be had it started the second)
      await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1
          && LockSupport.getBlocker(step) instanceof AbstractQueuedSynchronizer);
      assertThat(started).as("the second waits for the first's bytes").hasValue(1);
      firstMayEnd.countDown();
      step.join(10_000);
      assertThat(step.isAlive()).isFalse();
      assertThat(started).hasValue(2);
    }
  }
}
