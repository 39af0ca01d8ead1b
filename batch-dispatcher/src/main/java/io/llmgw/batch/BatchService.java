package io.llmgw.batch;

import io.llmgw.batch.dispatch.BatchMetrics;
import io.llmgw.batch.dispatch.Dispatcher;
import io.llmgw.batch.dispatch.Forwarder;
import io.llmgw.batch.dispatch.FrontDoorRoutes;
import io.llmgw.batch.dispatch.LoadReader;
import io.llmgw.batch.lifecycle.InputValidator;
import io.llmgw.batch.lifecycle.Lifecycle;
import io.llmgw.batch.openai.BatchApi;
import io.llmgw.batch.openai.Callers;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.shared.PeriodicLoop;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.upload.HeaderDeadline;
import io.llmgw.batch.upload.Uploads;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch service: OpenAI's Files and Batches API over a durable store, and the dispatcher that sends the queued
 * lines through the gateway as its pools' spare capacity allows.
 */
public final class BatchService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BatchService.class);

  private final BatchStore store;
  private final LoadReader reader;
  private final Forwarder forwarder;
  private final Dispatcher dispatcher;
  private final FrontDoorRoutes frontDoorRoutes;
  /** How often the front door's routes are asked after (one GET). */
  private static final long ROUTES_CHECK_MILLIS = 30_000;
  private PeriodicLoop routesCheck;
  private final Lifecycle lifecycle;
  private final BatchMetrics metrics;
  private final Vertx vertx;
  private final Uploads uploads;
  private final HeaderDeadline headerDeadline;
  /** Uploads read at once (each holds about a megabyte); as many more wait their turn, and the rest get 503. */
  private static final int UPLOADS_AT_ONCE = 8;
  private HttpServer server;
  private Callers callers;
  /** Reads the API keys file again every few seconds (tenants only). */
  private final ScheduledExecutorService keysReload = Executors
      .newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("batch-keys").factory());

  private BatchService(BatchSettings settings, BatchStore store, Clock clock) throws Exception {
    this.store = store;
    this.metrics = new BatchMetrics();
    this.reader = new LoadReader(settings.endpoints().eppAdmin(), Duration.ofSeconds(2),
        settings.endpoints().eppToken());
    this.forwarder = new Forwarder(settings.endpoints().frontDoor(), settings.delivery().objective(),
        settings.delivery().requestTimeout(),
        settings.delivery().maxAttempts(), settings.access().gatewayKey());
    this.dispatcher = new Dispatcher(store, settings, reader, forwarder, metrics, clock);
    this.frontDoorRoutes = new FrontDoorRoutes(settings.endpoints().frontDoor(), settings.access().gatewayKey());
    // a third of the heap: one validation of a large file at a time (its memory does not grow with the file), or
    // several small ones side by side
    InputValidator validator = new InputValidator(settings);
    long heap = Runtime.getRuntime().maxMemory();
    if (validator.memoryBound() > heap / 2) {
      LOG.warn(
          "one batch's validation may take up to {} MB (four lines of limits.maxLineBytes, a chunk of lines and the "
              + "custom_ids of limits.maxLines) of this heap's {} MB: raise -Xmx or lower the limits, or a batch at the limits "
              + "can run the service out of memory",
          validator.memoryBound() >> 20, heap >> 20);
    }
    this.lifecycle = new Lifecycle(store, validator, dispatcher::lastReading, clock, 250, settings.retention(),
        heap / 3);
    this.vertx = Vertx.vertx();
    this.uploads = new Uploads(store, settings.limits(), UPLOADS_AT_ONCE);
    this.headerDeadline = new HeaderDeadline(vertx, settings.limits().headerDeadline());
  }

  /** Opens the store {@code settings} names and starts serving; the dispatcher starts sending at once. */
  public static BatchService start(BatchSettings settings, Clock clock) throws Exception {
    return start(settings, Stores.open(settings.store()), clock, true);
  }

  /**
   * @param store the service owns it from here
   * @param run false: nothing moves on its own; tests drive {@link #dispatcher()} and {@link #lifecycle()} by hand
   */
  public static BatchService start(BatchSettings settings, BatchStore store, Clock clock, boolean run)
      throws Exception {
    BatchService s;
    try {
      s = new BatchService(settings, store, clock);
    } catch (Exception | Error e) {
      store.close();
      throw e;
    }
    try {
      s.callers = Callers.start(settings.access(), s.keysReload);
      BatchApi api = new BatchApi(store, settings, clock, s.lifecycle::wake, s.dispatcher::status, s::problems,
          s.metrics.registry(), s.callers, s.uploads);
      // a body that pauses longer than the idle deadline ends the connection (uploads answer 408 first)
      s.server = s.vertx
          .createHttpServer(
              new HttpServerOptions().setHost(settings.endpoints().host()).setPort(settings.endpoints().port())
                  .setIdleTimeout((int) Math.max(1, settings.limits().idleDeadline().toSeconds() + 5))
                  // HTTP/1.1 only: the deadlines and the refusal of an unread body (Connection: close) are HTTP/1's
                  .setHttp2ClearTextEnabled(false))
          .connectionHandler(s.headerDeadline)
          .requestHandler(s.headerDeadline.around(api.router(s.vertx)))
          .listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      s.close();
      throw new IllegalStateException(
          "the batch service cannot listen on " + settings.endpoints().host() + ":" + settings.endpoints().port()
              + ": " + (e.getCause() == null ? e : e.getCause()).getMessage(),
          e);
    }
    if (run) {
      s.dispatcher.start();
      s.lifecycle.start();
      s.routesCheck = PeriodicLoop.start("batch-front-door", ROUTES_CHECK_MILLIS, s.frontDoorRoutes::check, LOG);
    }
    LOG.info("batch service on {}:{} (store {}), reading load from {}, sending through {}", settings.endpoints().host(),
        s.port(), settings.store().startsWith("redis") ? settings.store() : "embedded", settings.endpoints().eppAdmin(),
        settings.endpoints().frontDoor());
    return s;
  }

  public int port() {
    return server.actualPort();
  }

  public Dispatcher dispatcher() {
    return dispatcher;
  }

  public Lifecycle lifecycle() {
    return lifecycle;
  }

  public BatchMetrics metrics() {
    return metrics;
  }

  public BatchStore store() {
    return store;
  }

  public FrontDoorRoutes frontDoorRoutes() {
    return frontDoorRoutes;
  }

  /** What the operator must mend for lines to flow ({@code /ready} names it); empty when nothing is known wrong. */
  private List<String> problems() {
    List<String> out = new ArrayList<>(dispatcher.problems());
    String routes = frontDoorRoutes.problem();
    if (routes != null) {
      out.add(routes);
    }
    return out;
  }

  @Override
  public void close() {
    if (routesCheck != null) {
      routesCheck.close();
    }
    lifecycle.close();
    dispatcher.close();
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("batch service: HTTP server did not stop cleanly: {}", e.toString());
    }
    forwarder.close();
    frontDoorRoutes.close();
    reader.close();
    if (callers != null) {
      callers.close();
    }
    keysReload.shutdownNow();
    uploads.close();
    store.close();
  }
}
