package io.llmgw.extproc.peers;

import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.llmgw.extproc.flow.core.SharedCounters;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerLoads;
import io.llmgw.extproc.state.PeerSpend;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.routed.RoutedPrefixes;
import java.io.IOException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replicas telling each other what they have in flight where and where they routed prompts (issue 29), and what each
 * tenant spent through them (issue 31): every replica with peers serves its counts on {@code llmgw.PeerLoad/Watch} (on
 * its health port) every {@link #TICK_MILLIS} ms, and watches each peer it is given ({@code --peers}). What a peer
 * says counts toward each pod's load ({@link PeerLoads}) while it is fresh; a peer that does not answer is dropped and
 * tried again every second, never waited for. In cluster mode the peers also come from the EPP Service's ready
 * endpoints ({@link #setDiscovered}), this replica among them: it knows itself when a watch request it sent arrives at
 * its own server (the request's nonce is one it made), which nobody else can fake, and stops watching that address. No
 * store in between: each replica's own counts are the truth about its own requests.
 *
 * <p>Peers are hostile until proven (issue 47): watch requests and every message are signed with the shared secret
 * ({@link PeerKey}), a message that claims this replica's id is ignored without changing whom it watches, and what a
 * message claims is checked against what can be ({@link PeerClaims}) before it counts.
 */
public final class PeerExchange implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerExchange.class);
  static final long TICK_MILLIS = 25;
  public static final Duration DEFAULT_WARM_TIMEOUT = Duration.ofSeconds(5);
  static final long RETRY_MILLIS = 1_000;

  private final String self = UUID.randomUUID().toString();
  private final PeerKey key;
  /** The nonces of this replica's own watch requests now open, to the address each was sent to. */
  private final Map<String, String> ownWatches = new ConcurrentHashMap<>();
  private final Set<String> listed;
  private volatile Set<String> discovered = Set.of();
  /** Addresses found to be this replica (from the Service's endpoints): never watched again. */
  private final Set<String> selves = ConcurrentHashMap.newKeySet();
  private final Map<String, ClientCall<byte[], byte[]>> calls = new ConcurrentHashMap<>();
  private final PeerSpend spendThere;
  private final RoutedPrefixes routed;
  private final SharedCounters counters;
  private final ScheduledExecutorService scheduler;
  private final PeerTraffic traffic = new PeerTraffic();
  private final PeerLoadService service;
  private final WarmStart warmStart;
  private final PeerViews views;
  private final PeerChannels channels;
  private final PeerLoop loop;
  /** Whether {@link #close} ends the loop: none was given, so it made its own. */
  private final boolean ownsLoop;
  /** Serves the KV-cache blocks to a peer that starts; null while this replica follows no pod's events. */
  private volatile BlockTransfer blocks;
  private volatile boolean closed;
  /** Its ticks (package-private for the tests that watch them start). */
  final PeerPublisher publisher;

  /** @param peers other replicas' health-port addresses, host:port */
  public PeerExchange(List<String> peers, PeerKey key, InFlightTracker inFlight, PeerLoads loads,
      ScheduledExecutorService scheduler) {
    this(peers, key, inFlight, loads, new PeerSpend(Ticker.system(), Duration.ZERO),
        Map::of, new RoutedPrefixes(), SharedCounters.NONE, scheduler, DEFAULT_WARM_TIMEOUT, null);
  }

  /**
   * @param spendThere where what tenants spent through each peer goes
   * @param spendHere what tenants spent through this replica, per tenant: the last minute's and the last day's tokens
   * @param routed where this replica routed prompts, sent while someone watches, and where its peers say they did
   * @param counters token fairness's counters: what flows were charged here goes to the peers, theirs comes here
   * @param warmTimeout how long a replica that starts waits for its peers' greetings before it is ready without them
   * @param loop the thread of the connections to the peers and of the ticks, which the caller closes after the server
   *     on it; null: one of its own, closed with this
   */
  public PeerExchange(List<String> peers, PeerKey key, InFlightTracker inFlight, PeerLoads loads,
      PeerSpend spendThere, Supplier<Map<String, long[]>> spendHere, RoutedPrefixes routed,
      SharedCounters counters, ScheduledExecutorService scheduler, Duration warmTimeout, PeerLoop loop) {
    this.ownsLoop = loop == null;
    this.loop = ownsLoop ? new PeerLoop() : loop;
    this.channels = new PeerChannels(this.loop);
    this.listed = Set.copyOf(peers);
    this.key = key;
    this.spendThere = spendThere;
    this.routed = routed;
    this.counters = counters;
    this.scheduler = scheduler;
    PeerMessages messages = new PeerMessages(self, inFlight, spendHere, spendThere, routed, counters,
        traffic);
    this.service = new PeerLoadService(traffic, messages::greeting, key, this::watchedBySelf,
        this::startPublishing);
    this.publisher = new PeerPublisher(this.loop.executor(), service, messages);
    this.warmStart = new WarmStart(this::wantedPeers, warmTimeout);
    this.views = new PeerViews(self, loads, spendThere, routed, counters, warmStart, traffic);
  }

  /** Ready to route: every peer has greeted this replica or is not there, or the warm-start time ran out. */
  public boolean ready() {
    return warmStart.ready();
  }

  /** Whether every peer watched now has greeted this replica (what {@code llmgw_peer_warm} says). */
  public boolean warm() {
    return warmStart.warm();
  }

  /** Told once, when this replica becomes ready to route ({@link #ready}). */
  public void onReady(Runnable r) {
    warmStart.onWarm(r);
  }

  /** Peers expected and not heard now: cut off, not answering, or not heard yet. */
  public int unreachable() {
    return spendThere.unreachable();
  }

  private Set<String> wantedPeers() {
    Set<String> out = new TreeSet<>();
    for (String p : listed) {
      if (wanted(p)) {
        out.add(p);
      }
    }
    for (String p : discovered) {
      if (wanted(p)) {
        out.add(p);
      }
    }
    return out;
  }

  /** Replicas watching this one now. */
  int watchers() {
    return service.watchers();
  }

  /** The id this replica's messages carry. */
  String id() {
    return self;
  }

  /** What this replica sent its watchers and received from its peers. */
  public PeerTraffic traffic() {
    return traffic;
  }

  /** Flows' charges dropped before a message could carry them: more flows charged between two than it holds. */
  public long droppedCharges() {
    return counters.dropped() + traffic.chargesLeftOut();
  }

  /** The Watch method (and Blocks, when {@link #shareBlocks} was told an index), for the health port's server. */
  public ServerServiceDefinition service() {
    return service.definition(blocks);
  }

  /**
   * Serves what the pods' KV-cache events told this replica to a peer that starts, and first takes what a peer knows
   * ({@link BlockTransfer#seed}, within the warm-start time), listed or discovered by then: call before subscribing
   * to the pods.
   */
  public void shareBlocks(EngineBlockIndex index) {
    blocks = new BlockTransfer(index, key);
    BlockTransfer.seed(List.copyOf(wantedPeers()), channels::to, key, index, warmStart.timeoutMillis());
  }

  public PeerExchange start() {
    if (!listed.isEmpty()) {
      routed.keep(true);
      counters.share();
      publisher.start();
    }
    spendThere.expect(wantedPeers());
    for (String peer : listed) {
      watch(peer);
    }
    warmStart.begin();
    scheduler.schedule(warmStart::check, warmStart.timeoutMillis(), TimeUnit.MILLISECONDS);
    warmStart.check();
    if (!listed.isEmpty()) {
      LOG.info("peer replicas: watching the in-flight counts of {}", new TreeSet<>(listed));
    }
    if (!key.signs() && key.given()) {
      LOG.warn("peer replicas: --peers-insecure: the counts are exchanged without a secret, so anyone who can reach "
          + "the health port reads tenants' names and spending and can send invented counts; use "
          + "--peers-secret-file unless every host that can reach it is trusted");
    }
    return this;
  }

  /** The peers found now (cluster mode): new ones are watched, gone ones forgotten at once. */
  public synchronized void setDiscovered(List<String> peers) {
    discovered = Set.copyOf(peers);
    if (!peers.isEmpty()) {
      routed.keep(true);
      counters.share();
      publisher.start();
    }
    for (String peer : peers) {
      if (wanted(peer) && !calls.containsKey(peer)) {
        watch(peer);
      }
    }
    for (String peer : List.copyOf(calls.keySet())) {
      if (!wanted(peer)) {
        stop(peer);
      }
    }
    spendThere.expect(wantedPeers());
    warmStart.check();
  }

  private boolean wanted(String peer) {
    return !closed && !selves.contains(peer) && (listed.contains(peer) || discovered.contains(peer));
  }

  /** Stops watching the peer and forgets what it said. */
  private void stop(String peer) {
    ClientCall<byte[], byte[]> call = calls.remove(peer);
    if (call != null) {
      call.cancel("no longer a peer", null);
    }
    channels.close(peer);
    views.stopped(peer, wantedPeers());
  }

  /** A peer watches this replica: it is told every change from now on. */
  private void startPublishing() {
    publisher.start();
  }

  private synchronized void watch(String peer) {
    if (!wanted(peer)) {
      return;
    }
    ManagedChannel channel = channels.to(peer);
    ClientCall<byte[], byte[]> call = PeerSections.watchCall(channel);
    calls.put(peer, call);
    byte[] nonce = PeerKey.nonce();
    String nonceKey = HexFormat.of().formatHex(nonce);
    ownWatches.put(nonceKey, peer);
    long[] seq = {0};
    ClientCalls.asyncServerStreamingCall(call, key.watchRequest(nonce, System.currentTimeMillis()),
        new StreamObserver<>() {
          @Override
          public void onNext(byte[] message) {
            received(peer, call, nonce, seq[0]++, message);
          }

          @Override
          public void onError(Throwable t) {
            ownWatches.remove(nonceKey);
            ended(peer, call, t.getMessage(), false);
          }

          @Override
          public void onCompleted() {
            ownWatches.remove(nonceKey);
            ended(peer, call, "it ended the stream (shutting down)", true);
          }
        });
  }

  /** Watches peers from this address (the replica's {@code --bind}); a wildcard leaves the choice to the system. */
  public void watchFrom(String host) {
    channels.from(host);
  }

  /** A watch request arrived at this replica's own server: if this replica sent it, that address is this replica. */
  private boolean watchedBySelf(byte[] nonce) {
    String peer = ownWatches.remove(HexFormat.of().formatHex(nonce));
    if (peer == null) {
      return false;
    }
    if (selves.add(peer)) {
      LOG.info("peer replica {} is this replica: not watched", peer);
    }
    scheduler.execute(() -> {
      synchronized (this) {
        stop(peer);
      }
    });
    return true;
  }

  private void received(String peer, ClientCall<byte[], byte[]> call, byte[] nonce, long seq, byte[] message) {
    traffic.received(message.length);
    byte[] payload;
    try {
      payload = key.open(nonce, seq, message);
    } catch (IOException | RuntimeException e) {
      views.refused(peer, e.getMessage());
      call.cancel("refused: " + e.getMessage(), null); // not signed: whoever answers is asked again in a second
      return;
    }
    views.heard(peer, payload);
  }

  private synchronized void ended(String peer, ClientCall<byte[], byte[]> call, String why, boolean clean) {
    if (!calls.remove(peer, call)) {
      return; // stopped on purpose, or a newer watch has replaced it
    }
    boolean again = wanted(peer);
    views.ended(peer, why, clean, again ? RETRY_MILLIS : 0);
    if (again) {
      scheduler.schedule(() -> {
        if (!calls.containsKey(peer)) {
          channels.retry(peer);
          watch(peer);
        }
      }, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() {
    closed = true;
    publisher.close();
    service.close();
    channels.closeAll();
    if (ownsLoop) {
      loop.close();
    }
  }
}
