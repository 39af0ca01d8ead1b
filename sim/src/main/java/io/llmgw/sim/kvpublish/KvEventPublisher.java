package io.llmgw.sim.kvpublish;

import io.llmgw.sim.engine.KvEventSink;
import io.llmgw.sim.engine.KvEventsConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * vLLM's {@code ZmqEventPublisher} for one simulated pod: each step's batch goes out on a PUB socket as three frames
 * (topic, 8-byte big-endian sequence number from 0, msgpack payload) and into a ring of the last
 * {@code bufferSteps} batches; a ROUTER socket answers a replay request (an 8-byte start sequence number) with every
 * buffered batch from there, each as {@code [seq, payload]}, then {@code [-1, empty]}. Sockets live on one thread of
 * their own; the engine's thread only encodes and queues.
 */
public final class KvEventPublisher implements KvEventSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvEventPublisher.class);
  /** A connection not handshaken by then is dropped (JeroMQ can leave one stuck for good) and the peer reconnects. */
  private static final int HANDSHAKE_MILLIS = 1_000;
  private static final byte[] END_SEQ = ByteBuffer.allocate(8).putLong(-1).array();

  private final KvBatchEncoder encoder = new KvBatchEncoder();
  private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(100_000);
  private final ArrayDeque<byte[]> ring = new ArrayDeque<>();
  private final AtomicLong dropped = new AtomicLong();
  private final KvEventsConfig config;
  private final String host;
  private final byte[] topic;
  private final ZContext context = new ZContext();
  private final Thread thread;
  private volatile boolean running = true;
  private long firstBuffered;

  /** Binds both sockets on {@code host} (a pod's own address) before returning, on the thread that will use them. */
  public KvEventPublisher(KvEventsConfig config, String host) {
    this.config = config;
    this.host = host;
    this.topic = config.topic().getBytes(StandardCharsets.UTF_8);
    CompletableFuture<Void> bound = new CompletableFuture<>();
    thread = new Thread(() -> {
      ZMQ.Socket pub;
      ZMQ.Socket replay = null;
      try {
        pub = context.createSocket(SocketType.PUB);
        pub.setSndHWM(100_000);
        pub.setLinger(0);
        pub.setHandshakeIvl(HANDSHAKE_MILLIS);
        pub.bind("tcp://" + host + ":" + config.port());
        if (config.replayPort() > 0) {
          replay = context.createSocket(SocketType.ROUTER);
          replay.setLinger(0);
          replay.setHandshakeIvl(HANDSHAKE_MILLIS);
          replay.bind("tcp://" + host + ":" + config.replayPort());
        }
      } catch (RuntimeException e) {
        bound.completeExceptionally(e);
        return;
      }
      bound.complete(null);
      run(pub, replay);
    }, "kv-events-" + host);
    thread.setDaemon(true);
    thread.start();
    try {
      bound.join();
    } catch (CompletionException e) {
      context.close();
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  @Override
  public void stored(long[] chain, int from, int to, int[] tokens, int blockSize, String adapter) {
    encoder.stored(chain, from, to, tokens, blockSize, adapter);
  }

  @Override
  public void removed(long hash) {
    encoder.removed(hash);
  }

  @Override
  public void cleared() {
    encoder.cleared();
  }

  @Override
  public void endOfStep() {
    if (encoder.isEmpty()) {
      return;
    }
    if (!running) { // closed: nothing publishes, nothing piles up
      encoder.drain(0);
      return;
    }
    byte[] batch = encoder.drain(System.currentTimeMillis() / 1000.0);
    if (!queue.offer(batch) && dropped.getAndIncrement() == 0) {
      LOG.warn("{}: KV-event queue full; batches are being dropped (subscribers will see a gap)", host);
    }
  }

  private void run(ZMQ.Socket pub, ZMQ.Socket replay) {
    long seq = 0;
    try {
      while (running || !queue.isEmpty()) {
        if (replay != null) {
          serveReplays(replay);
        }
        byte[] batch = queue.poll(20, TimeUnit.MILLISECONDS);
        if (batch == null) {
          continue;
        }
        pub.sendMore(topic);
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        pub.send(batch);
        ring.addLast(batch);
        if (ring.size() > config.bufferSteps()) {
          ring.removeFirst();
          firstBuffered++;
        }
        seq++;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (running) {
        LOG.warn("{}: KV-event publisher stopped: {}", host, e.toString());
      }
    }
  }

  private void serveReplays(ZMQ.Socket replay) {
    ZMsg request;
    while ((request = ZMsg.recvMsg(replay, ZMQ.DONTWAIT)) != null) {
      if (request.size() != 3 || request.getLast().size() != 8) {
        LOG.info("{}: ignored a replay request of {} frames", host, request.size());
        request.destroy();
        continue;
      }
      byte[] identity = request.pop().getData();
      long start = ByteBuffer.wrap(request.getLast().getData()).getLong();
      request.destroy();
      long seq = firstBuffered;
      for (byte[] batch : ring) {
        if (seq >= start) {
          replay.sendMore(identity);
          replay.sendMore(new byte[0]);
          replay.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
          replay.send(batch);
        }
        seq++;
      }
      replay.sendMore(identity);
      replay.sendMore(new byte[0]);
      replay.sendMore(END_SEQ);
      replay.send(new byte[0]);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(2_000);
    context.close();
  }
}
