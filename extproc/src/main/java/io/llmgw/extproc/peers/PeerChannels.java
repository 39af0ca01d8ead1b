package io.llmgw.extproc.peers;

import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One channel per peer this replica watches. A channel notices a cut link within two keepalive periods (a partition
 * drops packets without a word, and TCP alone would wait out its retransmission backoff, tens of seconds, after the
 * link is back) and gives a connection attempt up within a second, so that a healed link is used again within seconds
 * (issue 51). It connects from this replica's own address when the replica binds one: the peer, and a network policy,
 * see which replica watches.
 */
final class PeerChannels {
  /** Keepalive pings on a peer's channel; the health server permits them twice as often ({@code HealthServer}). */
  static final long KEEPALIVE_MILLIS = 2_000;

  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final PeerLoop loop;
  private volatile InetAddress from;

  PeerChannels(PeerLoop loop) {
    this.loop = loop;
  }

  /** Connects from {@code host} (a wildcard leaves the choice to the system). */
  void from(String host) {
    try {
      InetAddress a = InetAddress.getByName(host);
      from = a.isAnyLocalAddress() ? null : a;
    } catch (UnknownHostException e) {
      from = null; // the servers bound to it already, so a name that does not resolve now is the system's choice
    }
  }

  ManagedChannel to(String peer) {
    return channels.computeIfAbsent(peer, this::open);
  }

  private ManagedChannel open(String peer) {
    NettyChannelBuilder b = loop.client(NettyChannelBuilder.forTarget(peer)).usePlaintext()
        .maxInboundMessageSize(PeerLoadService.MAX_MESSAGE_BYTES)
        .keepAliveTime(KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS)
        .keepAliveTimeout(KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS)
        .keepAliveWithoutCalls(true)
        .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) PeerExchange.RETRY_MILLIS)
        // a message is taken in on the peer loop: what it does is short and never blocks, and a hand-off to a pool
        // thread per message cost more than the message (issue 51, bench/README.md "A fleet of processes")
        .directExecutor();
    InetAddress local = from;
    if (local != null) {
      b.localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
        @Override
        public SocketAddress createSocketAddress(SocketAddress remote, Attributes attrs) {
          return new InetSocketAddress(local, 0);
        }
      });
    }
    return b.build();
  }

  /**
   * Connects afresh on the next call: gRPC backs a failing channel off up to two minutes, and this replica's own
   * retry, every second, is the pace wanted (a link healed after a long cut is used again within a second or two).
   */
  void retry(String peer) {
    ManagedChannel channel = channels.get(peer);
    if (channel != null) {
      channel.resetConnectBackoff();
    }
  }

  void close(String peer) {
    ManagedChannel channel = channels.remove(peer);
    if (channel != null) {
      channel.shutdownNow();
    }
  }

  void closeAll() {
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
