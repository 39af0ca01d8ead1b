package io.llmgw.scraper.kvevents;

import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.EngineBlockIndex.Loss;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * One pod's event stream: its connection, the last sequence number applied, and the replay that fills a gap. Confined
 * to the subscriber's thread. Whatever cannot be applied in order (garbage, a gap replay did not fill, a connection
 * that broke) is a loss: the index drops the pod's blocks and distrusts them while it relearns. A pod that sends more
 * bytes a second than its share is a loss too, and is not listened to for a while (doubling while it goes on), so one
 * pod cannot take this thread from the others.
 */
final class PodEventStream {
  private static final Logger LOG = LoggerFactory.getLogger(PodEventStream.class);
  private static final long END_OF_REPLAY = -1;
  /** A loss of one cause is logged at most this often per pod; the counters count every one. */
  private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;
  private static final long SECOND = 1_000_000_000L;

  final String pod;
  private final String host;
  private final KvEventSettings settings;
  private final ZContext context;
  private final EngineBlockIndex index;
  private final KvEventStats stats;
  private final Map<Loss, Long> loggedAt = new EnumMap<>(Loss.class);
  /**
   * After a replay that went unanswered, none for this long, doubling while they go on unanswered (a replay holds this
   * thread up to the replay timeout, so a pod that never answers must not take it from the others): a gap meanwhile is
   * a loss without asking.
   */
  private final Backoff replaySpacing = new Backoff(2 * SECOND, 64 * SECOND);
  /** After an established connection broke: connected again this much later. */
  private final Backoff reconnect = new Backoff(SECOND / 10, 10 * SECOND);
  /** After a pod went over its bytes a second: not read for this long. */
  private final Backoff floodPause = new Backoff(SECOND, 60 * SECOND);
  private static final int REPLAY_HANDSHAKE_MILLIS = 200;
  private long last = -1;
  private long nextReplayNanos = System.nanoTime();
  private boolean restartLogged;
  /** The open connection, or null while it waits to be made again ({@link #reopenAtNanos}). */
  private PodConnection connection;
  private long reopenAtNanos;
  private long openedAtNanos;
  private long lastFloodNanos = Long.MIN_VALUE / 2;
  private long windowStartNanos;
  private long windowBytes;

  PodEventStream(String pod, ZContext context, KvEventSettings settings, EngineBlockIndex index, KvEventStats stats,
      IntakeBudget budget) {
    this.pod = pod;
    this.host = pod.substring(0, pod.lastIndexOf(':'));
    this.settings = settings;
    this.context = context;
    this.index = index;
    this.stats = stats;
    this.last = index.takeSeededSeq(pod); // a peer's snapshot of the pod: its batches after this are replayed
    open(budget);
  }

  /** The socket to poll, or null while the connection waits to be made again. */
  ZMQ.Socket sub() {
    return connection == null ? null : connection.sub;
  }

  ZMQ.Socket monitor() {
    return connection == null ? null : connection.monitor;
  }

  private void open(IntakeBudget budget) {
    connection = new PodConnection(context, host, settings, budget);
    long now = System.nanoTime();
    openedAtNanos = now;
    windowStartNanos = now;
    windowBytes = 0;
  }

  /** Makes the connection again (a smaller share, or its pause is over); true when the set of sockets changed. */
  boolean maintain(IntakeBudget budget, long now) {
    if (connection == null) {
      if (now - reopenAtNanos < 0) {
        return false;
      }
      open(budget);
      return true;
    }
    if (connection.budget.exceeds(budget)) {
      connection.close(); // events in flight now are a gap, which replay fills or counts
      open(budget);
      return true;
    }
    return false;
  }

  /** The monitor has something to say: a broken connection is a loss and is made again after a backoff. */
  boolean checkConnection(long now) {
    if (connection == null || !connection.disconnected()) {
      return false;
    }
    stats.disconnects.increment();
    if (now - openedAtNanos > reconnect.maxNanos()) {
      reconnect.reset(); // it held a while: this is a new trouble, not the same one again
    }
    long delay = reconnect.take();
    lose(Loss.DISCONNECTED, "the connection broke or the pod sent a batch over " + connection.budget.maxMessageBytes()
        + " bytes (--kv-events-max-message-bytes, or the share of --kv-events-budget-bytes); connecting again in "
        + delay / 1_000_000 + " ms");
    pause(now, delay);
    return true;
  }

  /** Closes the connection until {@code nanos} from now; what comes after is a new join, its loss already counted. */
  private void pause(long now, long nanos) {
    connection.close();
    connection = null;
    reopenAtNanos = now + nanos;
    last = -1;
  }

  /**
   * Counts a message's bytes against the pod's share of this second; false when it is over, in which case the pod is
   * distrusted and not listened to for a while.
   */
  boolean admit(ZMsg msg, long now) {
    long bytes = msg.contentSize();
    stats.bytes.add(bytes);
    if (now - windowStartNanos >= SECOND) {
      windowStartNanos = now;
      windowBytes = 0;
    }
    windowBytes += bytes;
    if (windowBytes <= settings.podBytesPerSecond()) {
      return true;
    }
    if (now - lastFloodNanos > floodPause.maxNanos()) {
      floodPause.reset();
    }
    lastFloodNanos = now;
    long delay = floodPause.take();
    lose(Loss.FLOOD, "it sent more than " + settings.podBytesPerSecond() + " bytes within a second "
        + "(--kv-events-pod-bytes-per-second); not listened to for " + delay / 1_000_000 + " ms");
    pause(now, delay);
    return false;
  }

  /** Handles one message from the SUB socket: {@code [topic, seq (8 bytes, big-endian), payload]}. */
  void received(ZMsg msg) {
    ZFrame[] frames = msg.toArray(new ZFrame[0]);
    if (frames.length != 3 || frames[1].size() != 8) {
      lose(Loss.GARBAGE, "a message of " + frames.length + " frames (topic, 8-byte sequence number, payload "
          + "expected)");
      return;
    }
    long seq = ByteBuffer.wrap(frames[1].getData()).getLong();
    byte[] payload = frames[2].getData();
    if (seq < 0) {
      lose(Loss.GARBAGE, "a negative sequence number " + seq);
      return;
    }
    if (last >= 0 && seq <= last) {
      // numbering started over: the engine restarted with an empty cache
      stats.restarts.increment();
      if (!restartLogged) {
        restartLogged = true;
        LOG.info("{}: KV-event sequence went back from {} to {}: taken as an engine restart, its blocks are cleared "
            + "(logged once per pod; llmgw_kv_event_restarts_total counts all)", pod, last, seq);
      }
      index.cleared(pod);
      last = -1;
    }
    if (seq > last + 1) {
      boolean filled = replay(last + 1, seq - 1);
      if (!filled && last >= 0) {
        lose(Loss.GAP, "batches " + (last + 1) + ".." + (seq - 1) + " missed and not replayed");
      }
      // a stream joined late and not replayed from its start: blocks stored before are unknown, counted as orphans
    }
    apply(seq, payload);
  }

  private void apply(long seq, byte[] payload) {
    last = seq;
    KvEventBatch batch;
    try {
      batch = KvEventDecoder.decode(payload);
    } catch (KvEventFormatException e) {
      lose(Loss.GARBAGE, "batch " + seq + ": " + e.getMessage());
      return;
    }
    stats.batches.increment();
    for (KvEvent e : batch.events()) {
      switch (e) {
        case KvEvent.BlockStored s -> {
          Loss loss = index.stored(pod, s.blockHashes(), s.hasParent(), s.parentBlockHash(), s.tokenIds(),
              s.blockSize(), s.loraName(), s.medium());
          if (loss != null) {
            lose(loss, "past the index's cap (" + index.caps() + ")");
            return;
          }
        }
        case KvEvent.BlockRemoved r -> index.removed(pod, r.blockHashes(), r.medium());
        case KvEvent.AllBlocksCleared c -> index.cleared(pod);
      }
    }
    index.applied(pod, seq);
  }

  /**
   * Asks the pod's replay socket for batches {@code from..to} and applies them; true when all arrived in time. A fresh
   * DEALER per replay, so a late answer to an abandoned one is never read as this one's.
   */
  private boolean replay(long from, long to) {
    if (settings.replayPort() == 0 || System.nanoTime() - nextReplayNanos < 0) {
      return false; // a pod whose replays go unanswered must not hold this thread a second per message
    }
    stats.replays.increment();
    long deadline = System.nanoTime() + settings.replayTimeout().toNanos();
    try (ZMQ.Socket dealer = context.createSocket(SocketType.DEALER)) {
      dealer.setLinger(0);
      dealer.setHandshakeIvl(REPLAY_HANDSHAKE_MILLIS); // a stuck handshake is retried within the replay's second
      // the pod's share bounds what a replay's answer may queue, as it bounds its stream: ZeroMQ's default would hold
      // a thousand of them
      dealer.setRcvHWM(connection.budget.highWaterMark());
      dealer.setMaxMsgSize(connection.budget.maxMessageBytes());
      dealer.connect("tcp://" + host + ":" + settings.replayPort());
      dealer.sendMore(new byte[0]);
      dealer.send(ByteBuffer.allocate(8).putLong(from).array());
      long budget = to - from + 2; // every batch asked for, and the end marker
      while (last < to && budget-- > 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          break;
        }
        dealer.setReceiveTimeOut((int) Math.min(left, Integer.MAX_VALUE));
        ZMsg reply = ZMsg.recvMsg(dealer);
        if (reply == null) {
          break;
        }
        ZFrame first = reply.pop();
        if (first != null && first.size() != 0) {
          reply.push(first); // a DEALER-to-ROUTER reply may come without the empty delimiter
        }
        if (reply.size() != 2 || reply.getFirst().size() != 8) {
          lose(Loss.GARBAGE, "a replay message of " + reply.size() + " frames");
          return false;
        }
        long seq = ByteBuffer.wrap(reply.getFirst().getData()).getLong();
        if (seq == END_OF_REPLAY) {
          break;
        }
        if (seq == last + 1 && seq <= to) {
          apply(seq, reply.getLast().getData());
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("{}: KV-event replay failed: {}", pod, e.toString());
    }
    if (last < to) {
      stats.replaysUnanswered.increment();
      nextReplayNanos = System.nanoTime() + replaySpacing.take();
      return false;
    }
    replaySpacing.reset();
    return true;
  }

  private void lose(Loss loss, String detail) {
    index.lost(pod);
    stats.lost(loss);
    long now = System.nanoTime();
    Long at = loggedAt.get(loss);
    if (at == null || now - at >= LOG_INTERVAL_NANOS) {
      loggedAt.put(loss, now);
      LOG.warn("{}: KV-cache events lost ({}): {}; its blocks are dropped and it is routed on the approximate prefix "
          + "index while the index relearns it (logged at most once a minute per pod and cause; "
          + "llmgw_kv_event_losses_total counts all)", pod, loss.name().toLowerCase(Locale.ROOT), detail);
    }
  }

  void close() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
