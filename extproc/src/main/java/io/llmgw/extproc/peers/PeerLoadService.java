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

/**
 * The gRPC method replicas watch each other's in-flight counts on ({@code llmgw.PeerLoad/Watch}, served on the plaintext
 * health port): the caller sends nothing, and gets this replica's snapshot every tick for as long as it listens. The messages
 * are {@link PeerSnapshotCodec}'s bytes, so no generated code is needed on either side. A watcher that does not take
 * its messages (its stream not ready) misses ticks rather than making them queue: only the latest snapshot matters.
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

  PeerLoadService(PeerTraffic traffic) {
    this.traffic = traffic;
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder("llmgw.PeerLoad")
        .addMethod(WATCH, ServerCalls.asyncServerStreamingCall(this::watch))
        .build();
  }

  private void watch(byte[] request, StreamObserver<byte[]> response) {
    ServerCallStreamObserver<byte[]> watcher = (ServerCallStreamObserver<byte[]>) response;
    watcher.setOnCancelHandler(() -> watchers.remove(watcher));
    watchers.add(watcher);
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
