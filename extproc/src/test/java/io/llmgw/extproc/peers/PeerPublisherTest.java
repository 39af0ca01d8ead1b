package io.llmgw.extproc.peers;

import static io.llmgw.extproc.peers.PeerSecurityTest.KEY;
import static io.llmgw.extproc.peers.PeerSecurityTest.busy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.picker.Ticker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 6: a replica ticks for its peers only once it has one (listed, discovered or watching it); one without
 * peers, the usual one, is not woken 40 times a second for nothing.
 */
class PeerPublisherTest {
  final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private long ticking() {
    return scheduler.getQueue().stream().filter(r -> ((RunnableScheduledFuture<?>) r).isPeriodic()).count();
  }

  private PeerExchange replica(List<String> peers) {
    return new PeerExchange(peers, KEY, busy(), new PeerLoads(Ticker.system(), Duration.ofSeconds(30)), scheduler);
  }

  @Test
  void aReplicaWithoutPeersDoesNotTickAndOneWithAPeerListedOrDiscoveredDoes() {
    try (PeerExchange alone = replica(List.of()).start()) {
      assertThat(alone.publisher.started()).as("nobody to tell").isZero();
      assertThat(ticking()).as("nothing periodic on the EPP's scheduler either").isZero();
      alone.setDiscovered(List.of("127.0.0.1:1"));
      assertThat(alone.publisher.started()).as("a peer discovered").isEqualTo(1);
      alone.setDiscovered(List.of("127.0.0.1:1", "127.0.0.1:2"));
      assertThat(alone.publisher.started()).as("still one tick").isEqualTo(1);
    }
    try (PeerExchange listed = replica(List.of("127.0.0.1:1")).start()) {
      assertThat(listed.publisher.started()).as("a peer listed").isEqualTo(1);
      assertThat(ticking()).as("the ticks run on the peer loop, not the EPP's scheduler").isZero();
    }
  }

  @Test
  void aReplicaThatOnlyIsWatchedTicksForItsWatcher() throws Exception {
    PeerExchange watched = replica(List.of()).start();
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(watched.service())
        .build().start();
    PeerExchange watcher = replica(List.of("127.0.0.1:" + server.getPort())).start();
    try {
      // the greeting, then heartbeats every 200 ms: only a tick sends those
      await().atMost(Duration.ofSeconds(10)).until(() -> watcher.traffic().receivedMessages() >= 3);
      assertThat(watched.traffic().sentMessages()).isGreaterThanOrEqualTo(3);
    } finally {
      watcher.close();
      watched.close();
      server.shutdownNow();
    }
  }
}
