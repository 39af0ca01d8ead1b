package io.llmgw.scraper;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One timer for all of a loop's request timeouts: each unfinished request expires once, in order; finished ones never. */
class DeadlinesTest {
  final DefaultEventLoop loop = new DefaultEventLoop();
  Deadlines deadlines = new Deadlines(loop, TimeUnit.MILLISECONDS.toNanos(40));
  final List<String> expired = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  final class Request implements Deadlines.Timed {
    final String name;
    final long deadline = deadlines.deadlineFromNow();
    final AtomicInteger expiries = new AtomicInteger();
    final CountDownLatch ended = new CountDownLatch(1);
    Runnable onExpiry = () -> {};
    volatile boolean done;

    Request(String name) {
      this.name = name;
    }

    @Override
    public long deadlineNanos() {
      return deadline;
    }

    @Override
    public boolean finished() {
      return done;
    }

    @Override
    public void expire() {
      done = true;
      expiries.incrementAndGet();
      expired.add(name);
      onExpiry.run();
      ended.countDown();
    }

    void finish() {
      done = true;
      deadlines.dropFinished();
    }
  }

  <T> T onLoop(java.util.concurrent.Callable<T> task) throws Exception {
    return loop.submit(task).get(5, TimeUnit.SECONDS);
  }

  @Test
  void unfinishedRequestsExpireInTheOrderTheyStartedAndAFinishedOneNever() throws Exception {
    Request[] abc = onLoop(() -> { // in one task, so that none can expire before b finishes
      Request a = add(new Request("a"));
      Request b = add(new Request("b"));
      b.finish();
      return new Request[] {a, b, add(new Request("c"))};
    });
    Request a = abc[0];
    Request b = abc[1];
    Request c = abc[2];
    assertThat(c.ended.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(expired).containsExactly("a", "c");
    assertThat(a.expiries.get() + c.expiries.get()).isEqualTo(2);
    assertThat(b.expiries.get()).isZero();
    assertThat(onLoop(deadlines::held)).isZero();
  }

  @Test
  void aFinishedRequestIsLetGoOnceEveryOlderOneHasFinished() throws Exception {
    deadlines = new Deadlines(loop, TimeUnit.MINUTES.toNanos(10)); // nothing expires in this test
    Request a = onLoop(() -> add(new Request("a")));
    Request b = onLoop(() -> add(new Request("b")));
    assertThat(onLoop(() -> {
      b.finish();
      return deadlines.held();
    })).as("b waits behind a").isEqualTo(2);
    assertThat(onLoop(() -> {
      a.finish();
      return deadlines.held();
    })).isZero();
    assertThat(expired).isEmpty();
  }

  @Test
  void aRequestStartedAsAnotherExpiresExpiresInItsTurnOnce() throws Exception {
    Request[] next = new Request[1];
    Request first = onLoop(() -> new Request("first"));
    first.onExpiry = () -> next[0] = add(new Request("next")); // a failed scrape's model fetch starts inside expire
    onLoop(() -> add(first));
    assertThat(first.ended.await(5, TimeUnit.SECONDS)).isTrue();
    Request started = onLoop(() -> next[0]);
    assertThat(started.ended.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(expired).containsExactly("first", "next");
    assertThat(started.expiries.get()).isEqualTo(1);
  }

  private Request add(Request r) {
    deadlines.add(r);
    return r;
  }
}
