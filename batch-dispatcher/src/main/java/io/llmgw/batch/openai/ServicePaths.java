package io.llmgw.batch.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.keys.BearerKey;
import io.llmgw.batch.store.BatchStore;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The batch service's own paths beside OpenAI's API: {@code /metrics}, {@code /admin/batch/status} (both behind the read
 * token when one is configured) and {@code /ready} (always open: it is the kubelet's probe).
 */
final class ServicePaths {
  private static final PrometheusTextFormatWriter TEXT_FORMAT = PrometheusTextFormatWriter.create();
  private static final long PROBE_EVERY_NANOS = 1_000_000_000L;

  private ServicePaths() {}

  /** @param readToken what {@code /metrics} and {@code /admin/...} want as a bearer token; null: open */
  static void route(Router r, BatchStore store, Supplier<Object> status, Supplier<List<String>> problems,
      PrometheusRegistry registry, String readToken) {
    if (readToken != null) {
      byte[] wanted = readToken.getBytes(StandardCharsets.US_ASCII);
      Handler<RoutingContext> guard = ctx -> {
        String key = BearerKey.of(ctx.request().getHeader("authorization"));
        if (key != null && MessageDigest.isEqual(wanted,
            key.getBytes(StandardCharsets.US_ASCII))) {
          ctx.next();
        } else {
          ctx.response().putHeader("www-authenticate", "Bearer");
          BatchApi.send(ctx, 401,
              ErrorCode.UNAUTHORIZED.error("this path wants the read token (Authorization: Bearer TOKEN)", null));
        }
      };
      r.get("/metrics").handler(guard);
      r.route("/admin/*").handler(guard);
    }
    r.get("/metrics").blockingHandler(ctx -> metrics(ctx, registry), false);
    AtomicLong lastProbe = new AtomicLong(System.nanoTime() - PROBE_EVERY_NANOS);
    r.get("/ready").blockingHandler(ctx -> ready(ctx, store, lastProbe, problems.get()), false);
    r.get("/admin/batch/status").blockingHandler(
        ctx -> BatchApi.send(ctx, 200, OpenAiShapes.JSON.valueToTree(status.get())), false);
  }

  /**
   * Readiness (the Deployment's probe): 503 while the store cannot write, so uploads and batches go to a replica that
   * can (or wait) instead of failing; once a write fails, probes try a small one (at most one a second), so readiness
   * returns with room. What holds every pool (a gateway that refuses this service's key, an EPP whose load cannot be
   * read) is named under {@code problems} but leaves it ready: every replica would share it, and uploads and batches
   * taken meanwhile lose nothing, their lines waiting until it is mended.
   */
  private static void ready(RoutingContext ctx, BatchStore store, AtomicLong lastProbe, List<String> problems) {
    long now = System.nanoTime();
    long last = lastProbe.get();
    // at most one probe write a second, however often /ready is asked (it needs no token)
    if (store.writeFailure() != null && now - last >= PROBE_EVERY_NANOS && lastProbe.compareAndSet(last, now)) {
      try {
        store.probeWrite();
      } catch (RuntimeException stillFailing) {
        // writeFailure says why
      }
    }
    String failure = store.writeFailure();
    ObjectNode body = OpenAiShapes.JSON.createObjectNode().put("ready", failure == null);
    if (failure != null) {
      body.put("reason", "the store cannot write (see the service's log)");
    }
    if (!problems.isEmpty()) {
      problems.forEach(body.putArray("problems")::add);
    }
    BatchApi.send(ctx, failure == null ? 200 : 503, body);
  }

  private static void metrics(RoutingContext ctx, PrometheusRegistry registry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
    try {
      TEXT_FORMAT.write(out, registry.scrape());
    } catch (IOException e) {
      ctx.fail(500, e);
      return;
    }
    ctx.response().putHeader("content-type", PrometheusTextFormatWriter.CONTENT_TYPE)
        .end(Buffer.buffer(out.toByteArray()));
  }
}
