package io.llmgw.extproc.request;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock a pick holds from reading the pods' load to taking its share of it: microseconds, with nothing inside that
 * blocks. A thread that finds it held spins a little before it parks: parking a gRPC event loop for a few
 * microseconds costs a context switch on each side (the small exchange's profile had park and unpark under this lock
 * at 1.4 % of the event loops' samples; with the spin, 0.16 %, and the lock with its spinning 0.4 %).
 */
final class PickLock {
  /** Tens of microseconds of spinning at most; then the waiter parks as any lock's would. */
  private static final int SPINS = 512;

  private final ReentrantLock lock = new ReentrantLock();

  void lock() {
    for (int i = 0; i < SPINS; i++) {
      if (lock.tryLock()) {
        return;
      }
      Thread.onSpinWait();
    }
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }
}
