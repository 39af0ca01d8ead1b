package io.llmgw.devproxy;

import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ImmediateResponse;
import io.llmgw.api.EppProtocol;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The heads of an exchange's messages as Envoy builds them: what goes upstream, to the EPP, and back to the client. */
final class HttpHeads {
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection",
      "transfer-encoding", "te", "trailer", "upgrade", "content-length");

  private HttpHeads() {}

  /** The client's headers that go upstream: no hop-by-hop one, and no destination, which only the EPP names. */
  static void forUpstream(MultiMap client, MultiMap upstream) {
    for (Map.Entry<String, String> h : client) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      // a destination only ever comes from the EPP: the client's is shown to the EPP but never routed on
      if (!HOP_BY_HOP.contains(name) && !EppProtocol.isSpoofable(name)) {
        upstream.add(h.getKey(), h.getValue());
      }
    }
  }

  /** The request's headers as the EPP sees them: the pseudo-headers first, then every header the client sent. */
  static List<Map.Entry<String, String>> forEpp(HttpServerRequest in) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    headers.add(Map.entry(":method", in.method().name()));
    headers.add(Map.entry(":path", in.uri()));
    headers.add(Map.entry(":authority", in.authority() == null ? "" : in.authority().toString()));
    headers.add(Map.entry(":scheme", "http"));
    headers.addAll(ExtProcMessages.entries(in.headers()));
    return headers;
  }

  /** The response's status and headers after the EPP's mutation, chunked when no length is known. */
  static void writeResponseHead(HttpServerResponse out, int status, MultiMap headers, CommonResponse common) {
    ExtProcMessages.apply(common.getHeaderMutation(), headers);
    out.setStatusCode(status);
    for (Map.Entry<String, String> h : headers) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!HOP_BY_HOP.contains(name) || name.equals("content-length")) {
        out.headers().add(h.getKey(), h.getValue());
      }
    }
    if (!out.headers().contains("content-length")) {
      out.setChunked(true);
    }
  }

  /** The EPP's own answer, whole. */
  static void writeImmediate(HttpServerResponse out, ImmediateResponse r) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    ExtProcMessages.apply(r.getHeaders(), headers);
    out.setStatusCode(r.getStatus().getCodeValue() == 0 ? 200 : r.getStatus().getCodeValue());
    out.headers().addAll(headers);
    out.end(Buffer.buffer(r.getBody().toByteArray()));
  }
}
