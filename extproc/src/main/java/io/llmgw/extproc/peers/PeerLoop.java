package io.llmgw.extproc.peers;

import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one thread of the peer exchange (issue 51): the connections to the peers, the health port's server that the
 * peers watch, and the tick that sends them this replica's state. Apart from gRPC's shared event loops, which carry
 * ext_proc's frames, a peer's messages (a hostile peer's included) never wait in front of a request's, nor a request's
 * in front of theirs; and a tick writes to its watchers' connections from the thread that owns them, with no hand-off
 * to another thread per message. Its CPU is this thread's, so it can be read per replica ({@link #THREAD};
 * bench/README.md, "The exchange on a thread of its own"). The thread starts with the first connection or tick: a
 * replica without peers has none.
 */
public final class PeerLoop implements AutoCloseable {
  /** The thread's name, as {@code /proc/<pid>/task/<tid>/comm} shows it (15 characters at most). */
  public static final String THREAD = "llmgw-peers";

  private final EventLoopGroup group;
  private final Class<? extends Channel> clientType;
  private final Class<? extends ServerChannel> serverType;

  public PeerLoop() {
    boolean epoll = Epoll.isAvailable();
    group = new MultiThreadIoEventLoopGroup(1, r -> {
      Thread t = new FastThreadLocalThread(r, THREAD);
      t.setDaemon(true); // a replica that failed to stop cleanly must not keep its JVM alive
      return t;
    }, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    clientType = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    serverType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** Where the exchange's ticks run. */
  public ScheduledExecutorService executor() {
    return group.next();
  }

  /** A connection to a peer, on this thread. */
  NettyChannelBuilder client(NettyChannelBuilder b) {
    return b.eventLoopGroup(group).channelType(clientType);
  }

  /** The server the peers watch (the health port), on this thread: accepts and reads alike. */
  public NettyServerBuilder server(NettyServerBuilder b) {
    return b.bossEventLoopGroup(group).workerEventLoopGroup(group).channelType(serverType);
  }

  /**
   * Ends the thread once no task came for 100 ms (within 2 s), so that the closing of the channels and the server on
   * it, asked for before, completes; it does not wait.
   */
  @Override
  public void close() {
    group.shutdownGracefully(100, 2_000, TimeUnit.MILLISECONDS);
  }
}
