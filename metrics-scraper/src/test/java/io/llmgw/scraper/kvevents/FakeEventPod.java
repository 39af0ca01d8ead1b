package io.llmgw.scraper.kvevents;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A pod's KV-event sockets driven by a test: a PUB socket it publishes on by hand (any sequence number, any frames) and,
 * when asked, a ROUTER that answers replays from what the test put in its buffer, or never answers.
 */
final class FakeEventPod implements AutoCloseable {
  final String address;
  private final ZContext context = new ZContext();
  private final ZMQ.Socket pub;
  private final Map<Long, byte[]> buffer = new ConcurrentHashMap<>();
  private final Thread replayer;
  private volatile boolean running = true;

  /** @param replay "answer", "silent" (reads requests, never answers) or "none" (nothing bound) */
  FakeEventPod(String host, int port, String replay) {
    this.address = host + ":8000";
    pub = context.createSocket(SocketType.PUB);
    pub.setLinger(0);
    pub.bind("tcp://" + host + ":" + port);
    if (replay.equals("none")) {
      replayer = null;
      return;
    }
    ZMQ.Socket router = context.createSocket(SocketType.ROUTER);
    router.setLinger(0);
    router.bind("tcp://" + host + ":" + (port + 1));
    router.setReceiveTimeOut(50);
    boolean answer = replay.equals("answer");
    replayer = new Thread(() -> {
      while (running) {
        ZMsg req = ZMsg.recvMsg(router);
        if (req == null || !answer) {
          continue;
        }
        byte[] identity = req.pop().getData();
        long start = ByteBuffer.wrap(req.getLast().getData()).getLong();
        buffer.keySet().stream().sorted().filter(s -> s >= start).forEach(s -> {
          router.sendMore(identity);
          router.sendMore(new byte[0]);
          router.sendMore(seq(s));
          router.send(buffer.get(s));
        });
        router.sendMore(identity);
        router.sendMore(new byte[0]);
        router.sendMore(seq(-1));
        router.send(new byte[0]);
      }
      router.close();
    }, "fake-replay");
    replayer.start();
  }

  static byte[] seq(long n) {
    return ByteBuffer.allocate(8).putLong(n).array();
  }

  /** Publishes {@code [topic, seq, payload]} and keeps it for replay. */
  void publish(long seq, byte[] payload) {
    buffer.put(seq, payload);
    pub.sendMore("kv-events");
    pub.sendMore(seq(seq));
    pub.send(payload);
  }

  /** Keeps a batch for replay only, as if the subscriber had missed it. */
  void bufferOnly(long seq, byte[] payload) {
    buffer.put(seq, payload);
  }

  /** Any frames at all. */
  void publishRaw(byte[]... frames) {
    for (int i = 0; i < frames.length - 1; i++) {
      pub.sendMore(frames[i]);
    }
    pub.send(frames[frames.length - 1]);
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    if (replayer != null) {
      replayer.join(2_000);
    }
    context.close();
  }
}
