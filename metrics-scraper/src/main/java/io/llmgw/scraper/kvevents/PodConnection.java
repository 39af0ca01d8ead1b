package io.llmgw.scraper.kvevents;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * One pod's SUB socket built within its {@link IntakeBudget}, with a monitor that says when the connection breaks.
 * ZeroMQ reconnects by itself after a network error but not after a protocol error, and a message over the size limit
 * is one: without the monitor that pod's events would stop for good, silently. Confined to the subscriber's thread.
 */
final class PodConnection implements AutoCloseable {
  private static final AtomicLong MONITORS = new AtomicLong();
  /**
   * A connection whose ZMTP handshake has not completed by then is dropped and made again. JeroMQ 0.6.0 leaves a few
   * in a hundred SUB connections made to a fresh PUB connected but never handshaken, silently and for good; without a
   * bound that pod's events would never arrive (measured: 2 to 10 of 60 such connections stuck, none with this bound).
   */
  static final int HANDSHAKE_MILLIS = 1_000;

  final ZMQ.Socket sub;
  final ZMQ.Socket monitor;
  final IntakeBudget budget;
  private boolean handshaken;

  PodConnection(ZContext context, String host, KvEventSettings settings, IntakeBudget budget) {
    this.budget = budget;
    this.sub = context.createSocket(SocketType.SUB);
    sub.setRcvHWM(budget.highWaterMark());
    sub.setMaxMsgSize(budget.maxMessageBytes());
    sub.setLinger(0);
    sub.setHandshakeIvl(HANDSHAKE_MILLIS);
    String address = "inproc://kv-events-monitor-" + MONITORS.incrementAndGet();
    sub.monitor(address, ZMQ.EVENT_HANDSHAKE_PROTOCOL | ZMQ.EVENT_DISCONNECTED);
    this.monitor = context.createSocket(SocketType.PAIR);
    monitor.setLinger(0);
    monitor.connect(address);
    sub.subscribe(settings.topic().getBytes(StandardCharsets.UTF_8));
    sub.connect("tcp://" + host + ":" + settings.port());
  }

  /**
   * Whether the monitor reported an established connection broken since last asked (reads every pending report). A
   * connection dropped before its handshake completed carried nothing and is made again by ZeroMQ itself.
   */
  boolean disconnected() {
    boolean broke = false;
    ZMQ.Event e;
    while ((e = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
      if (e.getEvent() == ZMQ.EVENT_HANDSHAKE_PROTOCOL) {
        handshaken = true;
      } else if (e.getEvent() == ZMQ.EVENT_DISCONNECTED && handshaken) {
        handshaken = false;
        broke = true;
      }
    }
    return broke;
  }

  @Override
  public void close() {
    sub.close();
    monitor.close();
  }
}
