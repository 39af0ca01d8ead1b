package io.llmgw.extproc.peers;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.PeerLoads;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replicas telling each other what they have in flight where (issue 29): every replica serves its counts on
 * {@code llmgw.PeerLoad/Watch} every {@link #TICK_MILLIS} ms, and watches each peer it is given ({@code --peers}). What
 * a peer says counts toward each pod's load ({@link PeerLoads}) while it is fresh; a peer that does not answer is
 * dropped and tried again every second, never waited for. No store in between: each replica's own counts are the truth
 * about its own requests.
 */
public final class PeerExchange implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerExchange.class);
  static final long TICK_MILLIS = 25;
  private static final long RETRY_MILLIS = 1_000;

  private final String self = UUID.randomUUID().toString();
  private final List<String> peers;
  private final InFlightTracker inFlight;
  private final PeerLoads loads;
  private final ScheduledExecutorService scheduler;
  private final PeerLoadService service = new PeerLoadService();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  /** Whether each peer's stream is up (absent: never was): logged when it comes and goes, not per retry. */
  private final Map<String, Boolean> up = new ConcurrentHashMap<>();
  private volatile boolean closed;
  private ScheduledFuture<?> publisher;

  /** @param peers other replicas' ext_proc addresses, host:port */
  public PeerExchange(List<String> peers, InFlightTracker inFlight, PeerLoads loads,
      ScheduledExecutorService scheduler) {
    this.peers = List.copyOf(peers);
    this.inFlight = inFlight;
    this.loads = loads;
    this.scheduler = scheduler;
  }

  /** The Watch method, for the ext_proc server. */
  public ServerServiceDefinition service() {
    return service.definition();
  }

  public PeerExchange start() {
    publisher = scheduler.scheduleAtFixedRate(this::publish, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    for (String peer : peers) {
      watch(peer);
    }
    if (!peers.isEmpty()) {
      LOG.info("peer replicas: watching the in-flight counts of {}", peers);
    }
    return this;
  }

  private void publish() {
    try {
      if (service.watchers() > 0) {
        service.publish(PeerSnapshotCodec.encode(self, inFlight.all()));
      }
    } catch (RuntimeException e) {
      LOG.warn("peer replicas: could not send this replica's counts: {}", e.toString());
    }
  }

  private void watch(String peer) {
    if (closed) {
      return;
    }
    ManagedChannel channel = channels.computeIfAbsent(peer, p -> NettyChannelBuilder.forTarget(p).usePlaintext()
        .maxInboundMessageSize(PeerLoadService.MAX_MESSAGE_BYTES).build());
    ClientCalls.asyncServerStreamingCall(channel.newCall(PeerLoadService.WATCH, CallOptions.DEFAULT), new byte[0],
        new StreamObserver<>() {
          @Override
          public void onNext(byte[] message) {
            received(peer, message);
          }

          @Override
          public void onError(Throwable t) {
            ended(peer, t.getMessage());
          }

          @Override
          public void onCompleted() {
            ended(peer, "it ended the stream (shutting down)");
          }
        });
  }

  private void received(String peer, byte[] message) {
    PeerSnapshotCodec.Snapshot s;
    try {
      s = PeerSnapshotCodec.decode(message);
    } catch (IOException | RuntimeException e) {
      if (up.put(peer, false) != Boolean.FALSE) {
        LOG.warn("peer replica {}: its counts cannot be read ({}); they do not count until they can", peer,
            e.getMessage());
      }
      loads.forget(peer);
      return;
    }
    if (s.sender().equals(self)) {
      if (up.put(peer, false) != Boolean.FALSE) {
        LOG.warn("peer replica {} is this replica; its own counts are not counted twice", peer);
      }
      return;
    }
    loads.update(peer, s.byEndpoint());
    if (up.put(peer, true) != Boolean.TRUE) {
      LOG.info("peer replica {}: receiving its in-flight counts", peer);
    }
  }

  private void ended(String peer, String why) {
    loads.forget(peer);
    if (closed) {
      return;
    }
    Boolean was = up.put(peer, false);
    if (was == null) {
      LOG.info("peer replica {}: not answering yet ({}); trying every {} ms", peer, why, RETRY_MILLIS);
    } else if (was) {
      LOG.warn("peer replica {}: gone ({}); its counts no longer count, trying again every {} ms", peer, why,
          RETRY_MILLIS);
    }
    scheduler.schedule(() -> watch(peer), RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    closed = true;
    if (publisher != null) {
      publisher.cancel(false);
    }
    service.close();
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
