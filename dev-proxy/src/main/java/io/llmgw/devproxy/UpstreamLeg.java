package io.llmgw.devproxy;

import io.llmgw.api.EppProtocol;
import io.llmgw.api.ErrorCode;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exchange's way upstream: the destinations the EPP named, tried in order (a connection that fails, or a 503, moves
 * on to the next while retries are left), as Envoy's override_host policy walks them. Touched on the exchange's loop.
 */
final class UpstreamLeg {
  private static final Logger LOG = LoggerFactory.getLogger(UpstreamLeg.class);
  private final Exchange exchange;
  private final DevProxy proxy;
  private final HttpServerRequest in;
  private List<String> destinations = List.of();
  private int attempt;
  private HttpClientRequest upstream;

  UpstreamLeg(Exchange exchange, DevProxy proxy, HttpServerRequest in) {
    this.exchange = exchange;
    this.proxy = proxy;
    this.in = in;
  }

  void destinations(List<String> named) {
    destinations = named;
  }

  /** A route that fails open goes to its default endpoint when the EPP named none. */
  void orDefault(String endpoint) {
    if (destinations.isEmpty()) {
      destinations = List.of(endpoint);
    }
  }

  boolean hasNext() {
    return attempt < destinations.size() && attempt <= proxy.settings().maxRetries();
  }

  /** Sends the body to the next destination; the exchange hears of the answer, or that none is left. */
  void send(MultiMap upstreamHeaders, Buffer body) {
    if (!hasNext()) {
      exchange.syntheticResponse(503, destinations.isEmpty() ? ErrorCode.NO_DESTINATION : ErrorCode.NO_HEALTHY_UPSTREAM,
          destinations.isEmpty() ? "the endpoint picker named no destination"
              : "no healthy upstream: " + destinations + " all failed");
      return;
    }
    String target = destinations.get(attempt++);
    int colon = target.lastIndexOf(':');
    String host = target.substring(0, colon).replace("[", "").replace("]", "");
    int port = Integer.parseInt(target.substring(colon + 1));
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().addAll(upstreamHeaders);
    headers.set(EppProtocol.DESTINATION, target);
    headers.set("content-length", Integer.toString(body.length()));
    RequestOptions options = new RequestOptions().setHost(host).setPort(port).setMethod(in.method())
        .setURI(in.uri()).setHeaders(headers);
    proxy.upstreamClient().request(options)
        .compose(req -> {
          upstream = req;
          return req.send(body);
        })
        .onComplete(ar -> {
          if (exchange.finished()) {
            if (ar.succeeded()) {
              ar.result().exceptionHandler(t -> {}); // the client is gone: the reset's own error is expected
              ar.result().request().reset();
            }
          } else if (ar.failed()) {
            LOG.info("{} {}: upstream {} failed ({}); {}", in.method(), in.uri(), target, ar.cause().toString(),
                attempt < destinations.size() ? "trying the next fallback" : "no fallback left");
            send(upstreamHeaders, body);
          } else {
            exchange.upstreamResponse(target, ar.result());
          }
        });
  }

  /** Ends the request upstream, if one was sent. */
  void reset() {
    if (upstream != null) {
      upstream.reset();
    }
  }
}
