package io.llmgw.bench.faults;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.concurrent.TimeUnit;

/**
 * A switchable stand-in at a pod's address that forwards to the real (simulated) pod behind it, or plays one of a
 * broken pod's failures: gone (port closed, connections dropped), hung (takes requests, never answers), answering
 * garbage, or with its metrics endpoint down.
 */
public final class FaultGate implements AutoCloseable {
  public enum Mode { PASS, DEAD, HANG, GARBAGE, METRICS_DOWN }

  private final Vertx vertx;
  private final String host;
  private final int port;
  private final String podHost;
  private final int podPort;
  private final HttpClient client;
  private volatile Mode mode = Mode.PASS;
  private HttpServer server;

  public FaultGate(Vertx vertx, String host, int port, String podHost, int podPort) throws Exception {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.podHost = podHost;
    this.podPort = podPort;
    this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(256));
    listen();
  }

  public String address() {
    return host + ":" + port;
  }

  public synchronized void set(Mode next) throws Exception {
    if (next == Mode.DEAD && server != null) {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      server = null;
    } else if (next != Mode.DEAD && server == null) {
      listen();
    }
    mode = next;
  }

  private void listen() throws Exception {
    server = vertx.createHttpServer().requestHandler(this::handle).listen(port, host)
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private void handle(HttpServerRequest req) {
    switch (mode) {
      case HANG -> req.pause(); // holds the connection and answers nothing
      case GARBAGE -> req.response().setStatusCode(200).putHeader("content-type", "application/json")
          .end(Buffer.buffer(new byte[] {(byte) 0xff, 0x00, '{', '"', 'x', (byte) 0xfe, '\n', '#'}));
      case METRICS_DOWN -> {
        if (req.path().equals("/metrics") || req.path().startsWith("/metrics/")) { // whole or filtered, as vLLM
          req.response().setStatusCode(503).end();
        } else {
          forward(req);
        }
      }
      default -> forward(req);
    }
  }

  private void forward(HttpServerRequest req) {
    req.body().compose(body -> client.request(new RequestOptions().setHost(podHost).setPort(podPort)
        .setMethod(req.method()).setURI(req.uri()).setHeaders(req.headers()))
        .compose(up -> up.send(body)))
        .onSuccess(resp -> {
          var out = req.response().setStatusCode(resp.statusCode());
          resp.headers().forEach(h -> {
            if (!h.getKey().equalsIgnoreCase("content-length") && !h.getKey().equalsIgnoreCase("transfer-encoding")) {
              out.putHeader(h.getKey(), h.getValue());
            }
          });
          out.setChunked(true);
          resp.handler(out::write);
          resp.endHandler(v -> out.end());
          resp.exceptionHandler(t -> req.connection().close());
        })
        .onFailure(t -> req.connection().close());
  }

  @Override
  public void close() throws Exception {
    if (server != null) {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    client.close();
  }
}
