package io.llmgw.scraper;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * GETs of small text pages from many pods: HTTP/1.1 over connections kept alive per pod, all on one event loop, each
 * answer handled on that loop where it arrives. A scrape is then a write and a read on a warm connection, not the JDK
 * client's round of hand-offs between its selector, its executor and the common pool, which cost more CPU than the
 * parsing it fed. A body over the limit ends its request; a request not answered whole within the timeout fails.
 */
final class HttpPages implements AutoCloseable {
  /** An answer: its status and its body as text. */
  record Page(int status, String body) {}

  private final Vertx vertx;
  private final HttpClient client;
  private final long timeoutMillis;
  private final int maxBodyBytes;

  HttpPages(Duration timeout, int maxBodyBytes) {
    this.timeoutMillis = Math.max(1, timeout.toMillis());
    this.maxBodyBytes = maxBodyBytes;
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
        .setInternalBlockingPoolSize(1));
    this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setPipelining(false)
        .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis)).setKeepAliveTimeout(60)
        .setTryUseCompression(false).setDecompressionSupported(false),
        new io.vertx.core.http.PoolOptions()
            .setHttp1MaxSize(2).setMaxWaitQueueSize(4));
  }

  /** {@code GET http://address/path}; completes on the event loop, or exceptionally with what went wrong. */
  CompletableFuture<Page> get(String address, String path) {
    CompletableFuture<Page> result = new CompletableFuture<>();
    int colon = address.lastIndexOf(':');
    RequestOptions options;
    try {
      options = new RequestOptions().setMethod(HttpMethod.GET).setHost(address.substring(0, colon))
          .setPort(Integer.parseInt(address.substring(colon + 1))).setURI(path);
    } catch (RuntimeException e) {
      result.completeExceptionally(new IOException("not host:port: " + address));
      return result;
    }
    long timer = vertx.setTimer(timeoutMillis, id -> result.completeExceptionally(
        new TimeoutException("no whole answer within " + timeoutMillis + " ms")));
    result.whenComplete((page, error) -> vertx.cancelTimer(timer));
    client.request(options).onComplete(requested -> {
      if (requested.failed()) {
        result.completeExceptionally(requested.cause());
        return;
      }
      HttpClientRequest request = requested.result();
      result.whenComplete((page, error) -> {
        if (error != null) {
          request.reset(); // timed out or too large: the connection goes, not a half-read answer
        }
      });
      request.send().onComplete(sent -> {
        if (sent.failed()) {
          result.completeExceptionally(sent.cause());
          return;
        }
        var response = sent.result();
        Buffer body = Buffer.buffer();
        response.handler(chunk -> {
          if (body.length() + chunk.length() > maxBodyBytes) {
            result.completeExceptionally(new IOException("response body exceeds " + maxBodyBytes + " bytes"));
          } else if (!result.isDone()) {
            body.appendBuffer(chunk);
          }
        });
        response.exceptionHandler(result::completeExceptionally);
        response.endHandler(end -> result.complete(new Page(response.statusCode(),
            body.toString(StandardCharsets.UTF_8))));
      });
    });
    return result;
  }

  @Override
  public void close() {
    client.close();
    vertx.close();
  }
}
