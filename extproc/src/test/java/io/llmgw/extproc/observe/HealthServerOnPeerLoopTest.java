package io.llmgw.extproc.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.llmgw.extproc.peers.PeerLoop;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * With peers, the health port's server runs on the peer loop, whose greetings set readiness (the warm start): a start
 * that held the health server's lock while its bind waited on the loop, with the loop waiting on that lock to set
 * readiness, would hang both for good.
 */
class HealthServerOnPeerLoopTest {
  @Test
  void theServerStartsWhileThePeerLoopSetsReadiness() throws Exception {
    HealthServer health = new HealthServer();
    CountDownLatch loopBusy = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<Void> started = null;
    try (PeerLoop loop = new PeerLoop()) {
      loop.executor().execute(() -> { // a peer's greeting, as the loop takes it in
        loopBusy.countDown();
        try {
          go.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        health.setReady(true);
      });
      assertThat(loopBusy.await(10, TimeUnit.SECONDS)).isTrue();
      AtomicReference<Thread> starter = new AtomicReference<>();
      started = CompletableFuture.runAsync(() -> {
        starter.set(Thread.currentThread());
        try {
          health.start(new InetSocketAddress("127.0.0.1", 0), loop, List.of());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      // the start waits for its bind, queued on the loop behind the greeting
      await().atMost(Duration.ofSeconds(10)).until(() -> starter.get() != null
          && starter.get().getState() == Thread.State.WAITING);
      go.countDown();
      started.get(10, TimeUnit.SECONDS);
      assertThat(health.port()).isPositive();
      assertThat(health.serving()).isTrue();
    } finally {
      go.countDown();
      if (started != null && started.isDone()) {
        health.close(); // else both threads hang for good (the failure this test is for): its lock would too
      }
    }
  }
}
