package io.llmgw.extproc.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.picker.Ticker;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A peer's messages are input like any other (issue 29): garbage, a message over the size limit, or a peer that goes
 * away costs this replica that peer's counts and nothing else, and a peer that speaks properly again counts again.
 */
class PeerExchangeTest {
  @Test
  void garbageOrAnOversizedMessageDropsThatPeersCountsUntilItSpeaksProperlyAgain() throws Exception {
    LinkedBlockingQueue<StreamObserver<byte[]>> watchers = new LinkedBlockingQueue<>();
    ServerServiceDefinition fake = ServerServiceDefinition.builder("llmgw.PeerLoad")
        .addMethod(PeerLoadService.WATCH, ServerCalls.asyncServerStreamingCall((req, out) -> watchers.add(out)))
        .build();
    Server peer = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(fake).build()
        .start();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    PeerLoads loads = new PeerLoads(Ticker.system(), Duration.ofSeconds(30));
    InFlightTracker theirs = new InFlightTracker(Ticker.system(), Clock.systemUTC());
    theirs.acquire("10.0.0.1:8000", "base");
    byte[] good = PeerSnapshotCodec.encode("the-peer", theirs.all(), java.util.Map.of(), List.of());
    try (PeerExchange exchange = new PeerExchange(List.of("127.0.0.1:" + peer.getPort()), PeerKey.INSECURE,
        new InFlightTracker(Ticker.system(), Clock.systemUTC()), loads, scheduler).start()) {
      StreamObserver<byte[]> stream = watchers.poll(10, TimeUnit.SECONDS);
      stream.onNext(good);
      await().atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 1);

      stream.onNext(new byte[] {1, 0, 1, 'x', (byte) 0xff, (byte) 0xff}); // a snapshot claiming 65,535 endpoints
      await().atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 0);
      assertThat(exchange.traffic().receivedMessages()).as("issue 29: the exchange counted").isEqualTo(2);
      assertThat(exchange.traffic().receivedBytes()).isEqualTo(good.length + 6L);
      assertThat(exchange.traffic().refusedMessages()).isEqualTo(1);
      stream.onNext(good);
      await().atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 1);

      stream.onNext(new byte[PeerLoadService.MAX_MESSAGE_BYTES + 1]); // over the limit: the stream fails
      await().atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 0);
      StreamObserver<byte[]> again = watchers.poll(10, TimeUnit.SECONDS); // watched again a second later
      assertThat(again).isNotNull();
      again.onNext(good);
      await().atMost(Duration.ofSeconds(5)).until(() -> loads.freshPeers() == 1);
    } finally {
      scheduler.shutdownNow();
      peer.shutdownNow();
    }
  }
}
