package io.llmgw.extproc.peers;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.stub.MetadataUtils;
import java.util.Arrays;

/**
 * Which sections a watcher reads beyond those every replica since version 4 reads: it names them in a header of its
 * watch request ({@code llmgw-peer-sections: served}), which a replica from before ignores, and a replica sends a
 * section only to watchers that named it. So a rolling upgrade mixes versions without either side refusing the
 * other's messages.
 */
final class PeerSections {
  static final Metadata.Key<String> HEADER = Metadata.Key.of("llmgw-peer-sections", Metadata.ASCII_STRING_MARSHALLER);
  /** What flows were charged ({@link ServedCodec}, version 6). */
  static final String SERVED = "served";
  private static final Context.Key<Boolean> TAKES_SERVED = Context.key("llmgw-peer-takes-served");

  private PeerSections() {}

  /** A watch call that asks for every section this replica reads. */
  static ClientCall<byte[], byte[]> watchCall(Channel channel) {
    Metadata headers = new Metadata();
    headers.put(HEADER, SERVED);
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers))
        .newCall(PeerLoadService.WATCH, CallOptions.DEFAULT);
  }

  /** Reads the header into the call's context, for {@link #takesServed}. */
  static final ServerInterceptor ASKED = new ServerInterceptor() {
    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
        ServerCallHandler<Q, A> next) {
      String asked = headers.get(HEADER);
      boolean served = asked != null && asked.length() <= 256
          && Arrays.stream(asked.split(",")).map(String::trim).anyMatch(SERVED::equals);
      return Contexts.interceptCall(Context.current().withValue(TAKES_SERVED, served), call, headers, next);
    }
  };

  /** Whether the watch being served asked for what flows were charged (in the handler's context). */
  static boolean takesServed() {
    return Boolean.TRUE.equals(TAKES_SERVED.get());
  }
}
