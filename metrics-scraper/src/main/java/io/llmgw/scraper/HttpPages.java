package io.llmgw.scraper;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * GETs of text pages from many pods: HTTP/1.1 over connections kept alive per pod, on one Netty event loop with
 * Netty's HTTP codec and nothing between it and the reader. A scrape is a write and a read on a warm connection; its
 * body is gathered into a reused array and handed to its reader on the loop, in place, never decoded into a string.
 * The Vert.x client this replaced spent more CPU in its request, future and buffer machinery than on the page it
 * fed (bench/README.md, "Scraping load run").
 *
 * <p>A body over the limit, an answer not whole within the timeout, or one that is not HTTP ends its request and its
 * connection. A request that fails on a reused connection before any byte of an answer arrived is sent once more on a
 * new connection: a pod may close an idle connection just as it is reused, and a GET may be asked again. A host name
 * (rather than an address) is resolved when a connection is opened, which the kept-alive connections make rare.
 */
final class HttpPages implements AutoCloseable {
  /** Reads one answer on the loop; the body array is reused once {@link #page} returns. */
  interface Reader {
    void page(int status, byte[] body, int length);

    void failed(Throwable error);
  }

  /** A body array as large as most pages, so that most scrapes never grow one. */
  private static final int FIRST_BODY_BYTES = 64 << 10;
  /** Arrays kept for reuse: one per scrape that can be in flight at once is plenty. */
  private static final int SPARE_BODIES = 64;
  private static final int MAX_LINE_BYTES = 4096;
  private static final int MAX_HEADER_BYTES = 16 << 10;
  private static final int MAX_CHUNK_BYTES = 64 << 10;

  private final NioEventLoopGroup group;
  private final EventLoop loop;
  private final Bootstrap bootstrap;
  final long timeoutMillis;
  final int maxBodyBytes;
  // touched on the loop only
  final Map<String, ArrayDeque<Channel>> idle = new HashMap<>();
  private final Map<String, Map<String, ByteBuf>> requests = new HashMap<>();
  final Deadlines deadlines;
  private final List<Channel> unflushed = new ArrayList<>();
  private boolean inRound;
  private final ArrayDeque<byte[]> spareBodies = new ArrayDeque<>();
  volatile boolean closed;

  HttpPages(Duration timeout, int maxBodyBytes) {
    this.timeoutMillis = Math.max(1, timeout.toMillis());
    this.maxBodyBytes = maxBodyBytes;
    this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("llmgw-scraper", true));
    this.loop = group.next();
    this.deadlines = new Deadlines(loop, TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
    this.bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpResponseDecoder(MAX_LINE_BYTES, MAX_HEADER_BYTES, MAX_CHUNK_BYTES),
                new PageConnection(HttpPages.this));
          }
        });
  }

  /**
   * Runs a round of {@link #get}s on the loop (where each starts without a hand-off), their requests written as they
   * start and flushed together when the round ends: the pods' threads then get their requests back to back, as a
   * loop that does nothing else would send them, instead of one each time the round's own work lets go of the core.
   */
  void round(Runnable gets) {
    loop.execute(() -> {
      inRound = true;
      try {
        gets.run();
      } finally {
        inRound = false;
        for (Channel c : unflushed) {
          c.flush();
        }
        unflushed.clear();
      }
    });
  }

  /** {@code GET http://address/path}; the reader hears, on the loop, the whole answer or what went wrong. */
  void get(String address, String path, Reader reader) {
    Request request = new Request(address, path, reader);
    if (loop.inEventLoop()) {
      start(request);
    } else {
      loop.execute(() -> start(request));
    }
  }

  private void start(Request request) {
    if (closed) {
      request.reader.failed(new ClosedChannelException());
      return;
    }
    request.bytes = requestBytes(request.address, request.path);
    if (request.bytes == null) {
      request.reader.failed(new IOException("not host:port and a path: " + request.address.strip() + request.path));
      return;
    }
    request.deadline = deadlines.deadlineFromNow();
    deadlines.add(request);
    ArrayDeque<Channel> free = idle.get(request.address);
    Channel channel = free == null ? null : free.pollLast();
    if (channel != null && channel.isActive()) {
      request.reused = true;
      send(channel, request);
    } else {
      connect(request);
    }
  }

  private void connect(Request request) {
    int colon = request.address.lastIndexOf(':');
    int port;
    try {
      port = Integer.parseInt(request.address.substring(colon + 1));
    } catch (RuntimeException e) {
      request.fail(new IOException("not host:port: " + request.address));
      return;
    }
    String host = request.address.substring(0, Math.max(0, colon));
    ChannelFuture connecting;
    try {
      connecting = bootstrap.connect(host, port);
    } catch (RuntimeException e) {
      request.fail(e);
      return;
    }
    connecting.addListener((ChannelFuture f) -> {
      if (!f.isSuccess()) {
        request.fail(f.cause());
      } else if (request.done) {
        f.channel().close(); // timed out while connecting
      } else {
        send(f.channel(), request);
      }
    });
  }

  private void send(Channel channel, Request request) {
    PageConnection connection = channel.pipeline().get(PageConnection.class);
    connection.current = request;
    connection.address = request.address;
    request.connection = connection;
    if (inRound) {
      channel.write(request.bytes.duplicate(), channel.voidPromise());
      unflushed.add(channel);
    } else {
      channel.writeAndFlush(request.bytes.duplicate(), channel.voidPromise());
    }
  }

  /**
   * A GET's bytes, made once per pod and path and written as they are: only answers are decoded (GETs, so none is
   * the body-less answer to a HEAD), and the request is the same every time. Direct, so that a write does not copy them
   * into a buffer of its own first. Null when the address or path holds anything but visible ASCII: both go into the
   * bytes as they are, and must not add a header.
   */
  private ByteBuf requestBytes(String address, String path) {
    Map<String, ByteBuf> byPath = requests.get(address);
    ByteBuf bytes = byPath == null ? null : byPath.get(path);
    if (bytes != null) {
      return bytes;
    }
    if (!visible(address) || !visible(path)) {
      return null;
    }
    byte[] get = ("GET " + path + " HTTP/1.1\r\nHost: " + address + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    bytes = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(get.length).put(get).flip()));
    requests.computeIfAbsent(address, a -> new HashMap<>(4)).put(path, bytes);
    return bytes;
  }

  private static boolean visible(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) <= ' ' || s.charAt(i) > '~') {
        return false;
      }
    }
    return !s.isEmpty();
  }

  /** Closes the kept-alive connections of pods no longer scraped and forgets them. */
  void retain(Set<String> addresses) {
    loop.execute(() -> {
      for (var it = idle.entrySet().iterator(); it.hasNext();) {
        var entry = it.next();
        if (!addresses.contains(entry.getKey())) {
          entry.getValue().forEach(Channel::close);
          it.remove();
        }
      }
      requests.keySet().retainAll(addresses);
    });
  }

  byte[] takeBody() {
    byte[] body = spareBodies.pollLast();
    return body != null ? body : new byte[Math.min(FIRST_BODY_BYTES, maxBodyBytes)];
  }

  void giveBack(byte[] body) {
    if (body.length <= 1 << 20 && spareBodies.size() < SPARE_BODIES) {
      spareBodies.addLast(body);
    }
  }

  @Override
  public void close() {
    closed = true;
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One GET from its start to its reader's answer; touched on the loop only. */
  final class Request implements Deadlines.Timed {
    final String address;
    final String path;
    final Reader reader;
    ByteBuf bytes;
    long deadline;
    PageConnection connection;
    boolean reused;
    boolean answered;
    boolean done;

    Request(String address, String path, Reader reader) {
      this.address = address;
      this.path = path;
      this.reader = reader;
    }

    /** Ends the request with an error and closes its connection (a half-read answer is never reused). */
    void fail(Throwable error) {
      if (done) {
        return;
      }
      done = true;
      PageConnection c = connection;
      connection = null;
      if (c != null) {
        c.release();
        c.channel.close();
      }
      reader.failed(error);
      deadlines.dropFinished();
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
      fail(new TimeoutException("no whole answer within " + timeoutMillis + " ms"));
    }

    /** A failure on a reused connection before any answer: asked once more on a new connection. */
    void lost(Throwable error) {
      if (reused && !answered && !done && !closed) {
        reused = false;
        PageConnection c = connection;
        connection = null;
        c.release();
        c.channel.close();
        connect(this);
      } else {
        fail(error);
      }
    }
  }
}
