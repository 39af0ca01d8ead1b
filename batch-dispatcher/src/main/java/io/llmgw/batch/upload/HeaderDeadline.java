package io.llmgw.batch.upload;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes a connection that has not sent a whole request's headers within the deadline, from when it opened or its
 * last response ended: the idle timeout alone would keep a client that sends a byte every few seconds forever, and
 * two thousand such clients would hold as many sockets and file handles. (A body that pauses is the idle timeout's,
 * and an upload's own deadlines.)
 */
public final class HeaderDeadline implements Handler<HttpConnection> {
  private final Vertx vertx;
  private final long millis;
  private final Map<HttpConnection, Long> timers = new ConcurrentHashMap<>();

  public HeaderDeadline(Vertx vertx, Duration deadline) {
    this.vertx = vertx;
    this.millis = Math.max(1, deadline.toMillis());
  }

  /** A connection opened: its first request's headers are due. */
  @Override
  public void handle(HttpConnection connection) {
    arm(connection);
    connection.closeHandler(v -> disarm(connection));
  }

  /** Wraps the server's request handler: a request whose headers arrived stops the clock until its response ends. */
  public Handler<HttpServerRequest> around(Handler<HttpServerRequest> requests) {
    return request -> {
      HttpConnection connection = request.connection();
      disarm(connection);
      // the next request on a kept-alive connection is due in its turn (on a closed one the timer finds nothing to do)
      request.response().endHandler(v -> arm(connection));
      requests.handle(request);
    };
  }

  private void arm(HttpConnection connection) {
    long id = vertx.setTimer(millis, t -> {
      if (timers.remove(connection, t)) {
        connection.close();
      }
    });
    Long previous = timers.put(connection, id);
    if (previous != null) {
      vertx.cancelTimer(previous);
    }
  }

  private void disarm(HttpConnection connection) {
    Long id = timers.remove(connection);
    if (id != null) {
      vertx.cancelTimer(id);
    }
  }
}
