package io.llmgw.scraper.kvevents;

import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.kvcache.EngineBlockIndex.Loss;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * One pod's event stream: its SUB socket, the last sequence number applied, and the replay that fills a gap. Confined
 * to the subscriber's thread. Whatever cannot be applied in order (garbage, a gap replay did not fill) is a loss: the
 * index drops the pod's blocks and distrusts them while it relearns.
 */
final class PodEventStream {
  private static final Logger LOG = LoggerFactory.getLogger(PodEventStream.class);
  private static final long END_OF_REPLAY = -1;

  final String pod;
  final ZMQ.Socket sub;
  private final String host;
  private final KvEventSettings settings;
  private final ZContext context;
  private final EngineBlockIndex index;
  private final KvEventStats stats;
  private final Set<Loss> logged = EnumSet.noneOf(Loss.class);
  /** After a replay that went unanswered, none for this long: a gap meanwhile is a loss without asking. */
  private static final long MIN_REPLAY_SPACING_NANOS = 2_000_000_000L;
  private static final int REPLAY_HANDSHAKE_MILLIS = 200;
  private long last = -1;
  private long nextReplayNanos = System.nanoTime();
  private boolean restartLogged;

  PodEventStream(String pod, ZContext context, KvEventSettings settings, EngineBlockIndex index, KvEventStats stats) {
    this.pod = pod;
    this.host = pod.substring(0, pod.lastIndexOf(':'));
    this.settings = settings;
    this.context = context;
    this.index = index;
    this.stats = stats;
    this.sub = context.createSocket(SocketType.SUB);
    sub.setRcvHWM(10_000);
    sub.setMaxMsgSize(KvEventSubscriber.MAX_MESSAGE_BYTES);
    sub.setLinger(0);
    sub.setHandshakeIvl(KvEventSubscriber.HANDSHAKE_MILLIS);
    sub.subscribe(settings.topic().getBytes(StandardCharsets.UTF_8));
    sub.connect("tcp://" + host + ":" + settings.port());
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
      dealer.setMaxMsgSize(KvEventSubscriber.MAX_MESSAGE_BYTES);
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
      nextReplayNanos = System.nanoTime() + MIN_REPLAY_SPACING_NANOS;
      return false;
    }
    return true;
  }

  private void lose(Loss loss, String detail) {
    index.lost(pod);
    stats.lost(loss);
    if (logged.add(loss)) {
      LOG.warn("{}: KV-cache events lost ({}): {}; its blocks are dropped and it is routed on the approximate prefix "
          + "index while the index relearns it (logged once per pod and cause; llmgw_kv_event_losses_total counts "
          + "all)", pod, loss.name().toLowerCase(java.util.Locale.ROOT), detail);
    }
  }

  void close() {
    sub.close();
  }
}
