package io.llmgw.scraper.kvevents;

import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Subscribes to every pod's KV-cache events (vLLM's ZeroMQ PUB socket, and its replay socket for gaps) and keeps the
 * {@link EngineBlockIndex} true to them. One thread polls every pod's socket; routing only reads the index, so a
 * pod that floods, stalls or sends garbage costs at most its share of this thread's time and of the intake's memory
 * ({@link IntakeBudget}), and its own entry. The set of pods follows the pools ({@link #pods}); a pod that leaves is
 * unsubscribed and its blocks dropped.
 */
public final class KvEventSubscriber implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvEventSubscriber.class);
  /** Messages read from one pod before the others get their turn. */
  private static final int FAIR_SHARE = 256;
  private static final int POLL_MILLIS = 50;
  /**
   * When batches come closer together than this, how long those that follow a wake-up are let gather before they are
   * read: a wake-up costs a selector round and a signalling pipe per socket, about a millisecond of CPU whatever the
   * batch (bench/README, "What a replica pays per KV-event batch"), and each pod sends a batch per engine step, so reading
   * them one per wake-up pays it for every step of every pod. Sparser batches are read at once, as gathering would only
   * add a pause to each. The index then lags the pods by up to this much more.
   */
  private static final long GATHER_MILLIS = 5;

  private final KvEventSettings settings;
  private final EngineBlockIndex index;
  private final KvEventStats stats = new KvEventStats();
  private final ZContext context = new ZContext();
  private final Map<String, PodEventStream> streams = new HashMap<>();
  private final Thread thread;
  private volatile Set<String> wanted = Set.of();
  private volatile boolean running = true;
  private IntakeBudget budget;

  public KvEventSubscriber(KvEventSettings settings, EngineBlockIndex index) {
    this.settings = settings;
    this.index = index;
    this.budget = IntakeBudget.forPods(settings, 1);
    this.thread = new Thread(this::run, "kv-events");
    thread.setDaemon(true);
  }

  public KvEventSubscriber start() {
    thread.start();
    LOG.info("subscribing to the pods' KV-cache events on port {} (replay {}, topic '{}'; at most {} bytes a batch, "
        + "{} bytes held for all pods, {} bytes a second from one pod)", settings.port(),
        settings.replayPort() == 0 ? "none" : settings.replayPort(), settings.topic(), settings.maxMessageBytes(),
        settings.budgetBytes(), settings.podBytesPerSecond());
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
    List<PodEventStream> polled = List.of();
    boolean changed = true;
    long lastRead = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    try {
      while (running) {
        Set<String> target = wanted;
        if (target != current) {
          reconcile(target);
          current = target;
          changed = true;
        }
        long now = System.nanoTime();
        for (PodEventStream s : streams.values()) {
          changed |= s.maintain(budget, now);
        }
        if (changed) {
          if (poller != null) {
            poller.close();
          }
          poller = context.createPoller(2 * streams.size());
          polled = new ArrayList<>();
          for (PodEventStream s : streams.values()) {
            if (s.sub() != null) {
              polled.add(s);
              poller.register(s.sub(), ZMQ.Poller.POLLIN);
              poller.register(s.monitor(), ZMQ.Poller.POLLIN);
            }
          }
          changed = false;
        }
        if (polled.isEmpty()) {
          Thread.sleep(POLL_MILLIS); // no pod to listen to now: look again later
          continue;
        }
        if (poller.poll(POLL_MILLIS) <= 0) {
          continue;
        }
        if (System.nanoTime() - lastRead < TimeUnit.MILLISECONDS.toNanos(GATHER_MILLIS)) {
          Thread.sleep(GATHER_MILLIS); // dense batches: pacing the reads, not a synchronisation
        }
        for (int i = 0; i < polled.size(); i++) {
          PodEventStream s = polled.get(i);
          if (poller.pollin(2 * i + 1) && s.checkConnection(System.nanoTime())) {
            changed = true;
          } else if (poller.pollin(2 * i) && !drain(s)) {
            changed = true;
          }
        }
        lastRead = System.nanoTime();
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

  /** Reads up to the pod's turn; false when the pod went over its share and its connection was closed. */
  private boolean drain(PodEventStream s) {
    for (int n = 0; n < FAIR_SHARE; n++) {
      ZMsg msg = ZMsg.recvMsg(s.sub(), ZMQ.DONTWAIT);
      if (msg == null) {
        return true;
      }
      boolean admitted = s.admit(msg, System.nanoTime());
      if (admitted) {
        s.received(msg);
      }
      msg.destroy();
      if (!admitted) {
        return false;
      }
    }
    return true;
  }

  private void reconcile(Set<String> target) {
    streams.entrySet().removeIf(e -> {
      if (target.contains(e.getKey())) {
        return false;
      }
      e.getValue().close();
      return true;
    });
    index.retain(target); // the blocks of a pod that left, and of any a peer seeded that is not the pool's

    budget = IntakeBudget.forPods(settings, target.size());
    for (String pod : target) {
      if (!streams.containsKey(pod) && pod.lastIndexOf(':') > 0) {
        streams.put(pod, new PodEventStream(pod, context, settings, index, stats, budget));
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(2_000);
    for (PodEventStream s : streams.values()) {
      s.close();
    }
    context.close();
  }
}
