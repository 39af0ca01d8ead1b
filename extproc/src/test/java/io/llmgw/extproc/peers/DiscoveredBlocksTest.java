package io.llmgw.extproc.peers;

import static io.llmgw.extproc.peers.PeerSecurityTest.KEY;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.PodSnapshot;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/**
 * Issue 51, item 2 in a cluster: a replica whose peers are discovered (the Service's endpoints), not listed, takes the
 * pods' blocks from one of them before it subscribes, as a replica with {@code --peers} does.
 */
class DiscoveredBlocksTest {
  @Test
  void aReplicaWhosePeersAreDiscoveredTakesTheBlocksOneOfThemHeard() throws Exception {
    ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
    EngineBlockIndex heard = new EngineBlockIndex();
    assertThat(heard.seed(new PodSnapshot("10.0.0.1:8000", 41, 16, false, new long[] {1, 2}, new long[] {11, 12})))
        .isTrue();
    PeerLoads loads = new PeerLoads(Ticker.system(), Duration.ofSeconds(30));
    PeerExchange peer = new PeerExchange(List.of(), KEY, PeerSecurityTest.busy(), loads, scheduler);
    peer.shareBlocks(heard);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(peer.service())
        .build().start();
    PeerExchange starting = new PeerExchange(List.of(), KEY, PeerSecurityTest.busy(),
        new PeerLoads(Ticker.system(), Duration.ofSeconds(30)), scheduler);
    try {
      starting.setDiscovered(List.of("127.0.0.1:" + server.getPort()));
      EngineBlockIndex fresh = new EngineBlockIndex();
      starting.shareBlocks(fresh);
      assertThat(fresh.blocks()).as("the discovered peer's blocks").isEqualTo(2);
      assertThat(fresh.takeSeededSeq("10.0.0.1:8000")).as("the pod replays from the batch after 41").isEqualTo(41);
    } finally {
      starting.close();
      peer.close();
      server.shutdownNow();
      scheduler.shutdownNow();
    }
  }
}
