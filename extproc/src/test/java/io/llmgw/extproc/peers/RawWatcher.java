package io.llmgw.extproc.peers;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A watcher that is not a replica: it watches one over real gRPC, signed with {@code key}, and keeps each message's
 * payload as it opened it (an empty one when it could not), for tests to read what a replica sends.
 */
final class RawWatcher implements AutoCloseable {
  final List<byte[]> payloads = new CopyOnWriteArrayList<>();
  private final ManagedChannel channel;
  private final ClientCall<byte[], byte[]> call;

  /** @param sections the {@code llmgw-peer-sections} header's value; null: none, as a replica from before sends */
  RawWatcher(PeerKey key, int port, String sections) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    Metadata headers = new Metadata();
    if (sections != null) {
      headers.put(PeerSections.HEADER, sections);
    }
    byte[] nonce = PeerKey.nonce();
    call = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers))
        .newCall(PeerLoadService.WATCH, CallOptions.DEFAULT);
    ClientCalls.asyncServerStreamingCall(call, key.watchRequest(nonce, System.currentTimeMillis()),
        new StreamObserver<>() {
          long seq;

          @Override
          public void onNext(byte[] message) {
            try {
              payloads.add(key.open(nonce, seq++, message));
            } catch (Exception e) {
              payloads.add(new byte[0]);
            }
          }

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        });
  }

  @Override
  public void close() {
    call.cancel("done", null);
    channel.shutdownNow();
  }
}
