package io.llmgw.extproc.peers;

import io.grpc.MethodDescriptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.llmgw.api.LogSampler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC method replicas watch each other on ({@code llmgw.PeerLoad/Watch}, served on the health port only when this
 * replica has peers): the caller sends a watch request ({@link PeerKey}: a nonce and the time, signed with the shared
 * secret), and gets this replica's snapshot once its stream is ready (with the prompt blocks it routed lately), then
 * every tick for as long as it listens, each message signed for its stream. The messages are {@link PeerSnapshotCodec}'s
 * bytes, so no generated code is needed on either side.
 *
 * <p>What a watcher may cost: an unsigned, stale or replayed request is refused before anything is sent; at most
 * {@link #MAX_WATCHERS} watch at once; nothing is sent to a stream that is not ready (gRPC's outbound buffer is past
 * its 32 KiB threshold), so a watcher that does not read holds at most that and one message, and misses ticks rather
 * than making them queue: the counts in the next snapshot replace them, and the prompt blocks of a missed tick are lost
 * to that watcher (its prefix index is a guess; a lost block costs a prefix hit, never a request).
 */
final class PeerLoadService {
  private static final Logger LOG = LoggerFactory.getLogger(PeerLoadService.class);
  private static final LogSampler REFUSALS = LogSampler.everyTenSeconds();
  static final int MAX_MESSAGE_BYTES = 1 << 20;
  /** Far more than any fleet's replicas; each watcher may hold about a message of buffer. */
  static final int MAX_WATCHERS = 64;

  static final MethodDescriptor<byte[], byte[]> WATCH = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
      .setFullMethodName(MethodDescriptor.generateFullMethodName("llmgw.PeerLoad", "Watch"))
      .setRequestMarshaller(new Bytes())
      .setResponseMarshaller(new Bytes())
      .build();

  /**
   * One stream: the watcher's nonce, whether it reads what flows were charged, and how many messages it has been sent
   * (each is signed with its place).
   */
  private static final class Watcher {
    final byte[] nonce;
    final boolean takesServed;
    long seq;
    boolean greeted;

    Watcher(byte[] nonce, boolean takesServed) {
      this.nonce = nonce;
      this.takesServed = takesServed;
    }
  }

  private final Map<ServerCallStreamObserver<byte[]>, Watcher> watchers = new ConcurrentHashMap<>();
  private final PeerTraffic traffic;
  private final Supplier<byte[]> greeting;
  private final PeerKey key;
  private final Predicate<byte[]> ownWatch;
  private final Runnable watched;
  private final SeenNonces seen = new SeenNonces();

  /**
   * @param greeting what a new watcher gets first, before the next tick
   * @param ownWatch whether a watch request carries a nonce this replica sent: it is watching itself
   * @param watched told when a peer's watch is taken, before its greeting
   */
  PeerLoadService(PeerTraffic traffic, Supplier<byte[]> greeting, PeerKey key, Predicate<byte[]> ownWatch,
      Runnable watched) {
    this.traffic = traffic;
    this.greeting = greeting;
    this.key = key;
    this.ownWatch = ownWatch;
    this.watched = watched;
  }

  /** @param blocks what serves {@code Blocks} (the pods' KV-cache blocks), or null when this replica follows none */
  ServerServiceDefinition definition(BlockTransfer blocks) {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder("llmgw.PeerLoad")
        .addMethod(WATCH, ServerCalls.asyncServerStreamingCall(this::watch));
    if (blocks != null) {
      b.addMethod(BlockTransfer.BLOCKS, blocks.handler());
    }
    return ServerInterceptors.intercept(b.build(), PeerSections.ASKED);
  }

  private void watch(byte[] request, StreamObserver<byte[]> response) {
    ServerCallStreamObserver<byte[]> call = (ServerCallStreamObserver<byte[]>) response;
    byte[] nonce;
    try {
      nonce = seen.admit(key, request);
    } catch (IOException e) {
      refuse(call, Status.UNAUTHENTICATED, e.getMessage());
      return;
    }
    if (ownWatch.test(nonce)) {
      call.onCompleted(); // this replica found itself among its peers, and now knows which address is its own
      return;
    }
    if (watchers.size() >= MAX_WATCHERS) {
      refuse(call, Status.RESOURCE_EXHAUSTED, MAX_WATCHERS + " replicas watch this one already");
      return;
    }
    Watcher w = new Watcher(nonce, PeerSections.takesServed());
    call.setOnCancelHandler(() -> watchers.remove(call));
    call.setOnReadyHandler(() -> greet(call, w));
    watchers.put(call, w);
    watched.run();
    greet(call, w);
  }

  private void refuse(ServerCallStreamObserver<byte[]> call, Status status, String why) {
    traffic.refusedWatch();
    long skipped = REFUSALS.admit("watch");
    if (skipped >= 0) {
      LOG.warn("peer replicas: a watch refused: {}{}", why, LogSampler.leftOut(skipped));
    }
    call.onError(status.withDescription(why).asRuntimeException());
  }

  /** The first message, once the stream can take it (synchronized: a stream's sends must not be concurrent). */
  private synchronized void greet(ServerCallStreamObserver<byte[]> call, Watcher w) {
    if (w.greeted || call.isCancelled() || !call.isReady()) {
      return;
    }
    w.greeted = true;
    try {
      send(call, w, greeting.get());
    } catch (RuntimeException e) {
      if (call.isCancelled()) {
        watchers.remove(call); // gone before it could be greeted
      }
      // else the greeting could not be made: the ticks that follow still carry everything but the recent history
    }
  }

  /**
   * Sends one snapshot to every greeted watcher ready for it: {@code withServed} to those that read what flows were
   * charged, {@code forAll} to the others.
   */
  synchronized void publish(byte[] forAll, byte[] withServed) {
    for (Map.Entry<ServerCallStreamObserver<byte[]>, Watcher> e : watchers.entrySet()) {
      ServerCallStreamObserver<byte[]> call = e.getKey();
      if (call.isCancelled()) {
        watchers.remove(call);
      } else if (e.getValue().greeted && call.isReady()) {
        try {
          send(call, e.getValue(), e.getValue().takesServed ? withServed : forAll);
        } catch (RuntimeException gone) {
          watchers.remove(call); // cancelled between the check and the send
        }
      }
    }
  }

  private void send(ServerCallStreamObserver<byte[]> call, Watcher w, byte[] payload) {
    byte[] message = key.seal(w.nonce, w.seq++, payload);
    call.onNext(message);
    traffic.sent(message.length);
  }

  int watchers() {
    return watchers.size();
  }

  /** Ends every watch (shutdown): the peers forget this replica at once instead of after the staleness. */
  synchronized void close() {
    for (ServerCallStreamObserver<byte[]> w : watchers.keySet()) {
      try {
        w.onCompleted();
      } catch (RuntimeException alreadyGone) {
        // cancelled meanwhile
      }
    }
    watchers.clear();
  }

  /** Messages as plain bytes, bounded. */
  static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readNBytes(MAX_MESSAGE_BYTES);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
