package io.llmgw.scraper.kvevents;

import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Subscribes to every pod's KV-cache events (vLLM's ZeroMQ PUB socket, and its replay socket for gaps) and keeps the
 * {@link EngineBlockIndex} true to them. One thread polls every pod's socket; routing only reads the index, so a
 * pod that floods, stalls or sends garbage costs at most this thread's time and its own entry. The set of pods
 * follows the pools ({@link #pods}); a pod that leaves is unsubscribed and its blocks dropped.
 */
public final class KvEventSubscriber implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvEventSubscriber.class);
  /** A batch larger than this is refused by ZeroMQ before it is read (the peer is disconnected and reconnects). */
  static final long MAX_MESSAGE_BYTES = 16L << 20;
  /**
   * A connection whose ZMTP handshake has not completed by then is dropped and made again. JeroMQ 0.6.0 leaves a few
   * in a hundred SUB connections made to a fresh PUB connected but never handshaken, silently and for good; without a
   * bound that pod's events would never arrive (measured: 2 to 10 of 60 such connections stuck, none with this bound).
   */
  static final int HANDSHAKE_MILLIS = 1_000;
  /** Messages read from one pod before the others get their turn. */
  private static final int FAIR_SHARE = 256;

  private final KvEventSettings settings;
  private final EngineBlockIndex index;
  private final KvEventStats stats = new KvEventStats();
  private final ZContext context = new ZContext();
  private final Map<String, PodEventStream> streams = new HashMap<>();
  private final Thread thread;
  private volatile Set<String> wanted = Set.of();
  private volatile boolean running = true;

  public KvEventSubscriber(KvEventSettings settings, EngineBlockIndex index) {
    this.settings = settings;
    this.index = index;
    this.thread = new Thread(this::run, "kv-events");
    thread.setDaemon(true);
  }

  public KvEventSubscriber start() {
    thread.start();
    LOG.info("subscribing to the pods' KV-cache events on port {} (replay {}, topic '{}')", settings.port(),
        settings.replayPort() == 0 ? "none" : settings.replayPort(), settings.topic());
    return this;
  }

  /** The pods (host:port) to follow from now on. */
  public void pods(Set<String> addresses) {
    wanted = Set.copyOf(addresses);
  }

  public KvEventStats stats() {
    return stats;
  }

  private void run() {
    Set<String> current = null;
    ZMQ.Poller poller = null;
    PodEventStream[] polled = new PodEventStream[0];
    try {
      while (running) {
        Set<String> target = wanted;
        if (target != current) {
          reconcile(target);
          current = target;
          if (poller != null) {
            poller.close();
          }
          poller = context.createPoller(streams.size());
          polled = streams.values().toArray(new PodEventStream[0]);
          for (PodEventStream s : polled) {
            poller.register(s.sub, ZMQ.Poller.POLLIN);
          }
        }
        if (polled.length == 0) {
          Thread.sleep(50); // no pods yet: nothing to poll, look again for some
          continue;
        }
        if (poller.poll(50) <= 0) {
          continue;
        }
        for (int i = 0; i < polled.length; i++) {
          if (poller.pollin(i)) {
            drain(polled[i]);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (running) {
        LOG.error("the KV-event subscriber stopped; prefix routing falls back to the approximate index: {}",
            e.toString(), e);
        for (String pod : streams.keySet()) {
          index.lost(pod);
        }
      }
    } finally {
      if (poller != null) {
        poller.close();
      }
    }
  }

  private void drain(PodEventStream s) {
    for (int n = 0; n < FAIR_SHARE; n++) {
      ZMsg msg = ZMsg.recvMsg(s.sub, ZMQ.DONTWAIT);
      if (msg == null) {
        return;
      }
      s.received(msg);
      msg.destroy();
    }
  }

  private void reconcile(Set<String> target) {
    streams.entrySet().removeIf(e -> {
      if (target.contains(e.getKey())) {
        return false;
      }
      e.getValue().close();
      index.forget(e.getKey());
      return true;
    });
    for (String pod : target) {
      if (!streams.containsKey(pod) && pod.lastIndexOf(':') > 0) {
        streams.put(pod, new PodEventStream(pod, context, settings, index, stats));
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(2_000);
    context.close();
  }
}
