package io.llmgw.extproc.peers;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The gRPC method replicas watch each other on ({@code llmgw.PeerLoad/Watch}, served on the plaintext health port): the
 * caller sends nothing, and gets this replica's snapshot at once (with the prompt blocks it routed lately) and then
 * every tick for as long as it listens. The messages are {@link PeerSnapshotCodec}'s bytes, so no generated code is
 * needed on either side. A watcher that does not take its messages (its stream not ready) misses ticks rather than
 * making them queue: the counts in the next snapshot replace them, and the prompt blocks of a missed tick are lost to
 * that watcher (its prefix index is a guess; a lost block costs a prefix hit, never a request).
 */
final class PeerLoadService {
  static final int MAX_MESSAGE_BYTES = 1 << 20;

  static final MethodDescriptor<byte[], byte[]> WATCH = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
      .setFullMethodName(MethodDescriptor.generateFullMethodName("llmgw.PeerLoad", "Watch"))
      .setRequestMarshaller(new Bytes())
      .setResponseMarshaller(new Bytes())
      .build();

  private final Set<ServerCallStreamObserver<byte[]>> watchers = ConcurrentHashMap.newKeySet();
  private final PeerTraffic traffic;
  private final Supplier<byte[]> greeting;

  /** @param greeting what a new watcher gets first, before the next tick */
  PeerLoadService(PeerTraffic traffic, Supplier<byte[]> greeting) {
    this.traffic = traffic;
    this.greeting = greeting;
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder("llmgw.PeerLoad")
        .addMethod(WATCH, ServerCalls.asyncServerStreamingCall(this::watch))
        .build();
  }

  private void watch(byte[] request, StreamObserver<byte[]> response) {
    ServerCallStreamObserver<byte[]> watcher = (ServerCallStreamObserver<byte[]>) response;
    watcher.setOnCancelHandler(() -> watchers.remove(watcher));
    synchronized (this) { // no tick's message goes out before the greeting
      try {
        byte[] first = greeting.get();
        watcher.onNext(first);
        traffic.sent(first.length);
      } catch (RuntimeException e) {
        if (watcher.isCancelled()) {
          return; // gone before it could be greeted
        }
        // the greeting could not be made: the ticks that follow still carry everything but the recent history
      }
      watchers.add(watcher);
    }
  }

  /** Sends one snapshot to every watcher ready for it (synchronized: a stream's sends must not be concurrent). */
  synchronized void publish(byte[] snapshot) {
    for (ServerCallStreamObserver<byte[]> w : watchers) {
      if (w.isCancelled()) {
        watchers.remove(w);
      } else if (w.isReady()) {
        try {
          w.onNext(snapshot);
          traffic.sent(snapshot.length);
        } catch (RuntimeException gone) {
          watchers.remove(w); // cancelled between the check and the send
        }
      }
    }
  }

  int watchers() {
    return watchers.size();
  }

  /** Ends every watch (shutdown): the peers forget this replica at once instead of after the staleness. */
  synchronized void close() {
    for (ServerCallStreamObserver<byte[]> w : watchers) {
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
