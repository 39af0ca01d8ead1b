package io.llmgw.batch.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmgw.api.BrowserHeaders;
import io.llmgw.api.ClientText;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.LogSampler;
import io.llmgw.api.OpenAiError;
import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.shared.ServiceHeader;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStatus;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.StoredFile;
import io.llmgw.batch.upload.FilePurposes;
import io.llmgw.batch.upload.Uploads;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenAI's Files and Batches API, enough of it that an OpenAI client's {@code files} and {@code batches} calls work
 * unchanged; plus the service's own paths ({@link ServicePaths}). Every refusal has OpenAI's error shape.
 */
public final class BatchApi {
  private static final Logger LOG = LoggerFactory.getLogger(BatchApi.class);
  private static final LogSampler FAILURES = LogSampler.everyTenSeconds();
  /** What OpenAI's Batch API accepts that a model server behind this gateway answers (not moderations, images, videos). */
  private static final List<String> ENDPOINTS = List.of("/v1/responses", "/v1/chat/completions", "/v1/completions",
      "/v1/embeddings");
  private static final String WINDOW = "24h";
  private static final long WINDOW_SECONDS = 24 * 3600;
  private static final int MAX_METADATA = 16;
  private static final int MAX_JSON_BODY = 64 << 10;

  private final BatchStore store;
  private final BatchSettings settings;
  private final Clock clock;
  private final Runnable wake;
  private final Supplier<Object> status;
  private final Supplier<List<String>> problems;
  private final PrometheusRegistry registry;
  private final Callers callers;
  private final Listings listings;
  private final Uploads uploads;

  /** @param problems what holds every pool that the operator must mend, named on {@code /ready} */
  public BatchApi(BatchStore store, BatchSettings settings, Clock clock, Runnable wake, Supplier<Object> status,
      Supplier<List<String>> problems, PrometheusRegistry registry, Callers callers, Uploads uploads) {
    this.store = store;
    this.settings = settings;
    this.clock = clock;
    this.wake = wake;
    this.status = status;
    this.problems = problems;
    this.registry = registry;
    this.callers = callers;
    this.listings = new Listings(store);
    this.uploads = uploads;
  }

  public Router router(Vertx vertx) {
    Router r = Router.router(vertx);
    // before any handler, so that errors, 404s and /metrics carry them too
    r.route().handler(ctx -> {
      BrowserHeaders.apply(ctx.response()::putHeader);
      ctx.response().putHeader(ServiceHeader.NAME, ServiceHeader.VALUE);
      ctx.next();
    });
    r.route("/v1/*").handler(callers::authenticate);
    r.get("/v1/files").blockingHandler(listings::files, false);
    r.post("/v1/files").handler(this::createFile); // streamed into the store, never into memory or a temporary file
    r.get("/v1/files/:id/content").handler(this::fileContent); // on the event loop; the store is read off it
    r.get("/v1/files/:id").blockingHandler(this::getFile, false);
    r.delete("/v1/files/:id").blockingHandler(this::deleteFile, false);
    BodyHandler json = BodyHandler.create(false).setBodyLimit(MAX_JSON_BODY);
    r.post("/v1/batches").handler(json).blockingHandler(this::createBatch, false);
    r.post("/v1/batches/:id/cancel").blockingHandler(this::cancel, false);
    r.get("/v1/batches/:id").blockingHandler(this::getBatch, false);
    r.get("/v1/batches").blockingHandler(listings::batches, false);
    ServicePaths.route(r, store, status, problems, registry, settings.access().readToken());
    r.route()
        .handler(ctx -> send(ctx, 404, ErrorCode.NOT_FOUND.error("no such resource: " + ctx.request().method() + " "
            + ctx.request().path(), null)));
    r.route().failureHandler(this::failure);
    return r;
  }

  private void failure(RoutingContext ctx) {
    int code = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
    String message = switch (code) {
      case 413 -> "the upload exceeds the limit of " + settings.limits().maxFileBytes() + " bytes";
      case 400 -> "the request could not be read: "
          + (ctx.failure() == null ? "bad request" : ClientText.clean(ctx.failure().getMessage()));
      default -> "the batch service failed: "
          + (ctx.failure() == null ? "status " + code : ClientText.clean(ctx.failure().toString()));
    };
    if (code >= 500) {
      // a failing store fails every call: one line per 10 s, saying how many more there were
      long skipped = FAILURES.admit("server-error");
      if (skipped >= 0) {
        LOG.warn("{} {}: {}{}", ctx.request().method(), ctx.request().path(), message, LogSampler.leftOut(skipped));
      }
    }
    send(ctx, code, new OpenAiError(message, OpenAiError.typeFor(code), null, null));
  }

  private void createFile(RoutingContext ctx) {
    StoredFile f = new StoredFile("file-" + UUID.randomUUID().toString().replace("-", ""), "batch", null, 0,
        clock.millis() / 1000, Callers.owner(ctx));
    Context loop = ctx.vertx().getOrCreateContext();
    uploads.receive(ctx.request(), loop, f, BatchApi::safeName, outcome -> loop.runOnContext(v -> {
      switch (outcome) {
        case Uploads.Outcome.Stored stored -> send(ctx, 200, OpenAiShapes.file(stored.file()));
        case Uploads.Outcome.Refused refused -> {
          // the body may not have been read to its end: the connection cannot carry another request
          ctx.response().putHeader("connection", "close");
          send(ctx, refused.status(), new OpenAiError(refused.message(), OpenAiError.typeFor(refused.status()),
              refused.param(), refused.status() == 408 ? ErrorCode.REQUEST_TIMEOUT.wire() : null));
        }
        case Uploads.Outcome.Gone gone -> ctx.request().connection().close();
      }
    }));
  }

  private void getFile(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    ownFile(ctx, store.file(id)).ifPresentOrElse(f -> send(ctx, 200, OpenAiShapes.file(f)),
        () -> notFound(ctx, "file", id));
  }

  /**
   * Deletes a file, unless a batch that has not ended reads it (refused 409 naming the batches): a batch still being
   * validated would otherwise fail, and the file's owner would lose every line of it.
   */
  private void deleteFile(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    if (ownFile(ctx, store.file(id)).isEmpty()) {
      notFound(ctx, "file", id);
      return;
    }
    List<String> readers = batchesReading(id);
    if (!readers.isEmpty()) {
      send(ctx, 409, ErrorCode.FILE_IN_USE.error("file " + id + " is the input of " + readers.size() + " batch"
          + (readers.size() == 1 ? "" : "es") + " that have not ended (" + String.join(", ", readers.subList(0,
              Math.min(5, readers.size())))
          + (readers.size() > 5 ? ", …" : "") + "); delete it once they have, or "
          + "cancel them first", "file_id"));
      return;
    }
    if (!store.deleteFile(id)) {
      notFound(ctx, "file", id);
      return;
    }
    send(ctx, 200, OpenAiShapes.JSON.createObjectNode().put("id", id).put("object", "file").put("deleted", true));
  }

  /** The batches, not ended, whose input is the file. */
  private List<String> batchesReading(String fileId) {
    List<String> out = new ArrayList<>();
    for (String batchId : store.batchIds(Arrays.stream(BatchStatus.values()).filter(st -> !st.terminal()).toList())) {
      store.batch(batchId).filter(b -> fileId.equals(b.inputFileId())).ifPresent(b -> out.add(b.id()));
    }
    return out;
  }

  private void fileContent(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    FileTransfer.send(ctx, store, id, Callers.owner(ctx), () -> notFound(ctx, "file", id));
  }

  private void createBatch(RoutingContext ctx) {
    JsonNode body;
    try {
      body = OpenAiShapes.JSON.readTree(ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes());
    } catch (IOException e) {
      invalid(ctx, "the body is not JSON", null);
      return;
    }
    if (body == null || !body.isObject()) {
      invalid(ctx, "the body must be a JSON object", null);
      return;
    }
    String fileId = body.path("input_file_id").asText("");
    String endpoint = body.path("endpoint").asText("");
    String window = body.path("completion_window").asText("");
    if (!ENDPOINTS.contains(endpoint)) {
      invalid(ctx, "endpoint must be one of " + String.join(", ", ENDPOINTS) + ", the endpoints of OpenAI's Batch API "
          + "that the gateway's model servers answer", "endpoint");
      return;
    }
    if (!WINDOW.equals(window)) {
      invalid(ctx, "completion_window must be '24h'", "completion_window");
      return;
    }
    StoredFile input = ownFile(ctx, store.file(fileId)).orElse(null);
    if (input == null) {
      notFound(ctx, "file", fileId);
      return;
    }
    if (!FilePurposes.BATCH.equals(input.purpose())) {
      invalid(ctx, "the input file " + input.id() + " was uploaded with purpose '" + ClientText.clean(input.purpose())
          + "'; a batch's input must be uploaded with purpose 'batch'", "input_file_id");
      return;
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    JsonNode meta = body.get("metadata");
    if (meta != null && !meta.isNull()) {
      if (!meta.isObject() || meta.size() > MAX_METADATA) {
        invalid(ctx, "metadata must be an object of at most " + MAX_METADATA + " string values", "metadata");
        return;
      }
      for (var it = meta.fields(); it.hasNext();) {
        var e = it.next();
        if (!e.getValue().isTextual() || e.getKey().length() > 64 || e.getValue().asText().length() > 512) {
          invalid(ctx, "metadata values must be strings (keys up to 64, values up to 512 characters)", "metadata");
          return;
        }
        metadata.put(e.getKey(), e.getValue().asText());
      }
    }
    long now = clock.millis() / 1000;
    Batch b = Batch.created("batch_" + UUID.randomUUID().toString().replace("-", ""), endpoint, fileId, window,
        metadata, now, now + WINDOW_SECONDS, Callers.owner(ctx));
    store.createBatch(b);
    wake.run();
    send(ctx, 200, OpenAiShapes.batch(b, store.counts(b.id(), 0)));
  }

  private void getBatch(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    ownBatch(ctx, store.batch(id)).ifPresentOrElse(b -> send(ctx, 200, OpenAiShapes.batch(b, store.counts(id,
        b.total()))),
        () -> notFound(ctx, "batch", id));
  }

  private void cancel(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    Batch b = ownBatch(ctx, store.batch(id)).orElse(null);
    if (b == null) {
      notFound(ctx, "batch", id);
      return;
    }
    long now = clock.millis() / 1000;
    while (b.status() == BatchStatus.VALIDATING || b.status() == BatchStatus.IN_PROGRESS) {
      if (store.transition(id, b.status(), b.moved(BatchStatus.CANCELLING, now))) {
        wake.run();
        break;
      }
      b = store.batch(id).orElseThrow(); // its status moved meanwhile: look again
    }
    b = store.batch(id).orElseThrow();
    if (b.status() != BatchStatus.CANCELLING && b.status() != BatchStatus.CANCELLED) {
      send(ctx, 409,
          ErrorCode.BATCH_NOT_CANCELLABLE.error("a batch that is " + b.status().wire() + " cannot be cancelled", null));
      return;
    }
    send(ctx, 200, OpenAiShapes.batch(b, store.counts(id, b.total())));
  }

  /** The file, if it is the caller's: another tenant's is answered as one that does not exist. */
  private static Optional<StoredFile> ownFile(RoutingContext ctx, Optional<StoredFile> file) {
    return file.filter(f -> f.owner().equals(Callers.owner(ctx)));
  }

  private static Optional<Batch> ownBatch(RoutingContext ctx, Optional<Batch> batch) {
    return batch.filter(b -> b.owner().equals(Callers.owner(ctx)));
  }

  private static String safeName(String name) {
    if (name == null || name.isBlank()) {
      return "upload.jsonl";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < name.length() && i < 128; i++) {
      char c = name.charAt(i);
      out.append(c < 0x20 || c == 0x7f || c == '/' || c == '\\' ? '_' : c);
    }
    return out.toString();
  }

  private static void invalid(RoutingContext ctx, String message, String param) {
    send(ctx, 400, new OpenAiError(message, ErrorCode.Type.INVALID_REQUEST, param, null));
  }

  private static void notFound(RoutingContext ctx, String kind, String id) {
    send(ctx, 404, ErrorCode.NOT_FOUND.error("no " + kind + " with id '" + ClientText.clean(id) + "'", null));
  }

  static void send(RoutingContext ctx, int status, OpenAiError error) {
    if (!ctx.response().ended()) {
      ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(error.json());
    }
  }

  static void send(RoutingContext ctx, int status, JsonNode body) {
    if (ctx.response().ended()) {
      return;
    }
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(body.toString());
  }
}
