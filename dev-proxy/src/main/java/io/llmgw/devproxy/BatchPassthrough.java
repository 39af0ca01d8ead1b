package io.llmgw.devproxy;

import io.llmgw.api.ErrorCode;
import io.llmgw.api.OpenAiError;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenAI's Files and Batches API, forwarded to the batch service as they are, streaming both ways: what Envoy's
 * {@code /v1/files} and {@code /v1/batches} routes do with ext_proc disabled (these requests name no model; the batch
 * service sends each line back through the front door, where the EPP picks its pod).
 */
final class BatchPassthrough {
  private static final Logger LOG = LoggerFactory.getLogger(BatchPassthrough.class);

  private final HttpClient upstream;
  private final String host;
  private final int port;

  BatchPassthrough(HttpClient upstream, String hostPort) {
    this.upstream = upstream;
    if (hostPort == null) {
      this.host = null;
      this.port = -1;
    } else {
      int colon = hostPort.lastIndexOf(':');
      this.host = hostPort.substring(0, colon);
      this.port = Integer.parseInt(hostPort.substring(colon + 1));
    }
  }

  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive",
      "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host");

  private static MultiMap endToEnd(MultiMap headers) {
    MultiMap out = MultiMap.caseInsensitiveMultiMap();
    for (Map.Entry<String, String> h : headers) {
      if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        out.add(h.getKey(), h.getValue());
      }
    }
    return out;
  }

  static boolean handles(String path) {
    return path != null && (path.equals("/v1/files") || path.startsWith("/v1/files/") || path.equals("/v1/batches")
        || path.startsWith("/v1/batches/"));
  }

  void forward(HttpServerRequest in) {
    if (host == null) {
      in.response().setStatusCode(404).putHeader("content-type", "application/json")
          .end(
              ErrorCode.NOT_FOUND.error("no batch service behind this proxy (start one with `llmgw batch` and give the "
                  + "proxy its address)", null).json());
      return;
    }
    in.pause();
    RequestOptions options = new RequestOptions().setHost(host).setPort(port).setMethod(in.method())
        .setURI(in.uri()).setHeaders(endToEnd(in.headers()));
    upstream.request(options)
        .compose(req -> req.send(in))
        .onSuccess(resp -> {
          in.response().setStatusCode(resp.statusCode()).headers().addAll(endToEnd(resp.headers()));
          if (resp.getHeader("content-length") == null) {
            in.response().setChunked(true);
          }
          resp.pipeTo(in.response());
        })
        .onFailure(t -> {
          LOG.info("{} {}: batch service {}:{} failed ({})", in.method(), in.path(), host, port, t.toString());
          if (!in.response().headWritten()) {
            in.response().setStatusCode(503).putHeader("content-type", "application/json")
                .end(new OpenAiError("the batch service is unavailable", ErrorCode.Type.SERVER, null, null).json());
          } else {
            in.response().reset(); // this stream only
          }
        });
  }
}
