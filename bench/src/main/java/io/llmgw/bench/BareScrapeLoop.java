package io.llmgw.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The scraper's floor: the same GETs to the same pods at the same cadence, on one thread with the same JDK selector and
 * socket calls, and nothing else (the answer's bytes are counted, never parsed beyond its Content-Length). What it costs
 * per round trip is what any HTTP poller pays on this machine; the scraper's cost above it is what ours adds. It is to
 * scraping what the null ext_proc server is to the exchange. Fixed-length answers only (as {@link StaticPods} gives).
 */
final class BareScrapeLoop implements AutoCloseable {
  private final Selector selector = Selector.open();
  private final List<Connection> connections = new ArrayList<>();
  private final ByteBuffer in = ByteBuffer.allocateDirect(64 << 10);
  private volatile boolean stop;
  private volatile long answers;
  private volatile long failures;

  BareScrapeLoop(List<String> addresses, String path) throws IOException {
    for (String address : addresses) {
      int colon = address.lastIndexOf(':');
      SocketChannel ch = SocketChannel.open(
          new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.configureBlocking(false);
      byte[] get = ("GET " + path + " HTTP/1.1\r\nHost: " + address + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      Connection c = new Connection(ch, ByteBuffer.allocateDirect(get.length).put(get).flip());
      ch.register(selector, SelectionKey.OP_READ, c);
      connections.add(c);
    }
  }

  long answers() {
    return answers;
  }

  long failures() {
    return failures;
  }

  /** Polls every connection each {@code intervalNanos} until {@link #close}; a connection still waiting is skipped. */
  void run(long intervalNanos) throws IOException {
    long next = System.nanoTime();
    while (!stop) {
      long now = System.nanoTime();
      if (now >= next) {
        next += intervalNanos;
        for (Connection c : connections) {
          if (!c.waiting) {
            c.send();
          }
        }
      }
      selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime())));
      for (SelectionKey key : selector.selectedKeys()) {
        ((Connection) key.attachment()).read();
      }
      selector.selectedKeys().clear();
    }
  }

  @Override
  public void close() throws IOException {
    stop = true;
    selector.wakeup();
  }

  void closeSockets() throws IOException {
    for (Connection c : connections) {
      c.channel.close();
    }
    selector.close();
  }

  private final class Connection {
    final SocketChannel channel;
    final ByteBuffer request;
    boolean waiting;
    long seen;
    long expected = -1; // the answer's whole length, once its headers are in

    Connection(SocketChannel channel, ByteBuffer request) {
      this.channel = channel;
      this.request = request;
    }

    void send() throws IOException {
      request.rewind();
      channel.write(request);
      if (request.hasRemaining()) { // a 250-byte request into an empty socket buffer is written whole
        failures++;
        return;
      }
      waiting = true;
      seen = 0;
      expected = -1;
    }

    void read() throws IOException {
      in.clear();
      int n = channel.read(in);
      if (n < 0) {
        failures++;
        channel.close();
        return;
      }
      if (expected < 0) {
        expected = wholeLength(in, n);
        if (expected < 0) { // not the fixed-length answer this loop is for: counted, so that the run shows it
          failures++;
          waiting = false;
          return;
        }
      }
      seen += n;
      if (seen >= expected) {
        waiting = false;
        answers++;
      }
    }

    /**
     * Headers' end plus Content-Length, from the first read (which holds them whole on loopback); -1 if not. Read from
     * the buffer in place, with nothing allocated: the floor must not do work the scraper is measured against.
     */
    private long wholeLength(ByteBuffer buf, int n) {
      int end = -1;
      for (int i = 3; i < n; i++) {
        if (buf.get(i) == '\n' && buf.get(i - 1) == '\r' && buf.get(i - 2) == '\n' && buf.get(i - 3) == '\r') {
          end = i + 1;
          break;
        }
      }
      for (int line = 0; line >= 0 && line < end; line = nextLine(buf, line, end)) {
        if (startsWithIgnoringCase(buf, line, end, CONTENT_LENGTH)) {
          long length = 0;
          int digits = 0;
          for (int i = line + CONTENT_LENGTH.length; i < end; i++) {
            byte b = buf.get(i);
            if (b >= '0' && b <= '9') {
              length = length * 10 + (b - '0');
              digits++;
            } else if (b != ' ' || digits > 0) {
              break;
            }
          }
          return digits == 0 ? -1 : end + length;
        }
      }
      return -1;
    }
  }

  private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);

  private static int nextLine(ByteBuffer buf, int from, int end) {
    for (int i = from; i < end - 1; i++) {
      if (buf.get(i) == '\n') {
        return i + 1;
      }
    }
    return -1;
  }

  private static boolean startsWithIgnoringCase(ByteBuffer buf, int at, int end, byte[] lower) {
    if (at + lower.length > end) {
      return false;
    }
    for (int i = 0; i < lower.length; i++) {
      byte b = buf.get(at + i);
      if ((b >= 'A' && b <= 'Z' ? b + 32 : b) != lower[i]) {
        return false;
      }
    }
    return true;
  }

}
