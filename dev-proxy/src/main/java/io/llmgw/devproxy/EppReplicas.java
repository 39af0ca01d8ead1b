package io.llmgw.devproxy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The EPP replicas the proxy may open ext_proc streams to, as Envoy's {@code epp} cluster holds them: each is
 * health-checked (gRPC health, service {@code readiness}, on its ext_proc port and over its TLS) every interval, a
 * stream that fails before the EPP answered marks its replica down at once (outlier detection), and a new stream goes to
 * the healthy replica with the fewest open streams. With none healthy, every replica is tried (Envoy's panic mode).
 */
final class EppReplicas implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EppReplicas.class);

  /** One replica: its channel, its stub, whether it is in rotation, and how many streams it has open. */
  static final class Replica {
    final String address;
    final ManagedChannel channel;
    final ExternalProcessorGrpc.ExternalProcessorStub stub;
    final AtomicInteger open = new AtomicInteger();
    volatile boolean healthy = true;

    Replica(String address, ManagedChannel channel) {
      this.address = address;
      this.channel = channel;
      this.stub = ExternalProcessorGrpc.newStub(channel);
    }

    @Override
    public String toString() {
      return address;
    }
  }

  private final List<Replica> replicas = new ArrayList<>();
  private final AtomicInteger turn = new AtomicInteger();
  private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "dev-proxy-epp-health");
    t.setDaemon(true);
    return t;
  });

  EppReplicas(List<String> addresses, ChannelCredentials tls, long intervalMillis) {
    for (String a : addresses) {
      int colon = a.lastIndexOf(':');
      String host = a.substring(0, colon);
      int port = Integer.parseInt(a.substring(colon + 1));
      NettyChannelBuilder b = tls == null ? NettyChannelBuilder.forAddress(host, port).usePlaintext()
          : NettyChannelBuilder.forAddress(host, port, tls);
      replicas.add(new Replica(a, b.build()));
    }
    if (replicas.size() > 1) {
      checker.scheduleWithFixedDelay(this::checkAll, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The healthy replica with the fewest open streams, not one of {@code tried} if another is left; ties go round in
   * turn (as Envoy's default round-robin would spread them), not always to the first.
   */
  Replica pick(Set<Replica> tried) {
    int n = replicas.size();
    int start = Math.floorMod(turn.getAndIncrement(), n);
    Replica best = null;
    int bestRank = Integer.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      Replica r = replicas.get((start + i) % n);
      // healthy and untried first, then untried, then any; fewest open streams within a rank
      int rank = (tried.contains(r) ? 2 : r.healthy ? 0 : 1) * (Integer.MAX_VALUE / 4) + r.open.get();
      if (rank < bestRank) {
        best = r;
        bestRank = rank;
      }
    }
    return best;
  }

  List<Replica> all() {
    return List.copyOf(replicas);
  }

  /** A stream to {@code r} failed before its EPP answered: out of rotation until a health check finds it ready. */
  void failed(Replica r) {
    if (replicas.size() > 1 && r.healthy) {
      r.healthy = false;
      LOG.warn("EPP replica {} failed a stream before answering; out of rotation until it is ready again", r);
    }
  }

  private void checkAll() {
    for (Replica r : replicas) {
      HealthGrpc.newStub(r.channel).withDeadlineAfter(1, TimeUnit.SECONDS)
          .check(HealthCheckRequest.newBuilder().setService("readiness").build(), new HealthAnswer(r));
    }
  }

  private static final class HealthAnswer
      implements StreamObserver<HealthCheckResponse> {
    private final Replica replica;

    HealthAnswer(Replica replica) {
      this.replica = replica;
    }

    @Override
    public void onNext(HealthCheckResponse r) {
      set(r.getStatus() == ServingStatus.SERVING, r.getStatus().toString());
    }

    @Override
    public void onError(Throwable t) {
      set(false, io.grpc.Status.fromThrowable(t).getCode().toString());
    }

    @Override
    public void onCompleted() {}

    private void set(boolean ready, String why) {
      if (replica.healthy != ready) {
        LOG.info("EPP replica {} {} ({})", replica, ready ? "back in rotation" : "out of rotation", why);
        replica.healthy = ready;
      }
    }
  }

  @Override
  public void close() {
    checker.shutdownNow();
    replicas.forEach(r -> r.channel.shutdownNow());
    for (Replica r : replicas) {
      try {
        r.channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
