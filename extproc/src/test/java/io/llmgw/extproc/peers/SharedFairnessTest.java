package io.llmgw.extproc.peers;

import static io.llmgw.extproc.peers.PeerSecurityTest.KEY;
import static io.llmgw.extproc.peers.PeerSecurityTest.busy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.extproc.flow.core.ServedTokens;
import io.llmgw.extproc.flow.core.SharedCounters;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 5, over real gRPC: what one replica's flows were charged reaches its peers' counters, and a watcher
 * that did not ask for it (a replica from before it, during a rolling upgrade) gets only messages it can read.
 */
class SharedFairnessTest {
  final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
  final List<AutoCloseable> open = new ArrayList<>();

  /** Charges handed out once each, and the charges heard. */
  static final class Recording implements SharedCounters {
    final Queue<ServedTokens> toSend = new ConcurrentLinkedQueue<>();
    final List<ServedTokens> heard = new CopyOnWriteArrayList<>();

    @Override
    public void share() {}

    @Override
    public List<ServedTokens> drain() {
      List<ServedTokens> out = new ArrayList<>();
      for (ServedTokens s; (s = toSend.poll()) != null;) {
        out.add(s);
      }
      return out;
    }

    @Override
    public void heard(List<ServedTokens> charges) {
      heard.addAll(charges);
    }

    @Override
    public long dropped() {
      return 0;
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
    scheduler.shutdownNow();
  }

  private PeerExchange replica(List<String> peers, SharedCounters counters) {
    PeerExchange e = new PeerExchange(peers, KEY, busy(), new PeerLoads(Ticker.system(), Duration.ofSeconds(30)),
        new PeerSpend(Ticker.system(), Duration.ofMillis(500)), Map::of, new RoutedPrefixes(), counters, scheduler,
        Duration.ofSeconds(5), null).start();
    open.add(e);
    return e;
  }

  private int serve(PeerExchange e) throws Exception {
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(e.service())
        .build().start();
    open.add(server::shutdownNow);
    return server.getPort();
  }

  @Test
  void whatOneReplicasFlowsWereChargedReachesItsPeerOnce() throws Exception {
    Recording here = new Recording();
    PeerExchange charging = replica(List.of(), here);
    int port = serve(charging);
    Recording there = new Recording();
    PeerExchange peer = replica(List.of("127.0.0.1:" + port), there);
    await().atMost(Duration.ofSeconds(10)).until(() -> peer.traffic().receivedMessages() >= 1);

    ServedTokens heavy = new ServedTokens("default/sim-pool", 0, "heavy", 2_016);
    here.toSend.add(heavy);
    await().atMost(Duration.ofSeconds(10)).until(() -> there.heard.contains(heavy));
    long after = peer.traffic().receivedMessages();
    await().atMost(Duration.ofSeconds(10)).until(() -> peer.traffic().receivedMessages() >= after + 3);
    assertThat(there.heard).as("counted once, not with every tick after").containsExactly(heavy);
    assertThat(peer.traffic().refusedMessages()).isZero();
    assertThat(charging.traffic().chargesSent()).isEqualTo(1);
    assertThat(peer.traffic().chargesReceived()).isEqualTo(1);
  }

  @Test
  void aWatcherThatDidNotAskGetsOnlyMessagesAReplicaBeforeVersionSixReads() throws Exception {
    assertThat(versionsSeen(null)).as("the greeting and ticks, none of version 6").allMatch(v -> v >= 1 && v <= 5);
  }

  @Test
  void aGarbledOrOversizedHeaderIsNoRequestAndAListNamingTheSectionIs() throws Exception {
    for (String garbage : List.of("", "nonsense", "servedx", "served;q=1", "x".repeat(300) + ",served")) {
      assertThat(versionsSeen(garbage)).as("header '%s'", garbage).allMatch(v -> v >= 1 && v <= 5);
    }
    assertThat(versionsSeen("other, served")).as("a section this replica does not know, beside one it does")
        .contains((int) PeerSnapshotCodec.VERSION);
  }

  /** The versions a raw watcher sent {@code header} (none when null) reads while the replica sends a charge. */
  private List<Integer> versionsSeen(String header) throws Exception {
    Recording here = new Recording();
    PeerExchange charging = replica(List.of(), here);
    try (RawWatcher watcher = new RawWatcher(KEY, serve(charging), header)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !watcher.payloads.isEmpty());
      here.toSend.add(new ServedTokens("default/sim-pool", 0, "heavy", 2_016));
      await().atMost(Duration.ofSeconds(10)).until(here.toSend::isEmpty); // drained into a tick
      int seen = watcher.payloads.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> watcher.payloads.size() >= seen + 2);
      return watcher.payloads.stream().map(p -> p.length == 0 ? -1 : (int) p[0]).toList();
    }
  }
}
