package io.llmgw.batch.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.api.ErrorCode;
import io.llmgw.api.OpenAiError;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.StoredFile;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** {@code GET /v1/files} and {@code GET /v1/batches}: the caller's own, newest first, a page at a time. */
final class Listings {
  /** Batches read from the store per step while looking for a page of the caller's. */
  private static final int SCAN = 100;

  private final BatchStore store;

  Listings(BatchStore store) {
    this.store = store;
  }

  void batches(RoutingContext ctx) {
    Integer limit = limit(ctx, 20, 100);
    if (limit == null) {
      return;
    }
    String owner = Callers.owner(ctx);
    String after = ctx.request().getParam("after");
    List<Batch> mine = new ArrayList<>(limit + 1);
    while (mine.size() <= limit) {
      List<Batch> page = store.batches(after, SCAN);
      for (Batch b : page) {
        if (b.owner().equals(owner) && mine.size() <= limit) {
          mine.add(b);
        }
      }
      if (page.size() < SCAN) {
        break;
      }
      after = page.getLast().id();
    }
    List<ObjectNode> items = new ArrayList<>();
    for (Batch b : mine.subList(0, Math.min(limit, mine.size()))) {
      items.add(OpenAiShapes.batch(b, store.counts(b.id(), b.total())));
    }
    BatchApi.send(ctx, 200, OpenAiShapes.list(items, mine.size() > limit));
  }

  /** OpenAI's parameters: {@code purpose}, {@code limit} (1–10,000), {@code after}, {@code order} (desc by default). */
  void files(RoutingContext ctx) {
    Integer limit = limit(ctx, 10_000, 10_000);
    if (limit == null) {
      return;
    }
    String order = ctx.request().getParam("order", "desc");
    if (!order.equals("asc") && !order.equals("desc")) {
      BatchApi.send(ctx, 400,
          new OpenAiError("order must be asc or desc", ErrorCode.Type.INVALID_REQUEST, "order", null));
      return;
    }
    String owner = Callers.owner(ctx);
    String purpose = ctx.request().getParam("purpose");
    List<StoredFile> mine = new ArrayList<>(store.files().stream().filter(f -> f.owner().equals(owner))
        .filter(f -> purpose == null || purpose.equals(f.purpose())).toList());
    Comparator<StoredFile> byAge = Comparator.comparingLong(StoredFile::createdAt).thenComparing(StoredFile::id);
    mine.sort(order.equals("asc") ? byAge : byAge.reversed());
    String after = ctx.request().getParam("after");
    int from = 0;
    if (after != null) {
      for (int i = 0; i < mine.size(); i++) {
        if (mine.get(i).id().equals(after)) {
          from = i + 1;
        }
      }
    }
    List<StoredFile> page = mine.subList(Math.min(from, mine.size()), Math.min(from + limit, mine.size()));
    BatchApi.send(ctx, 200, OpenAiShapes.list(page.stream().map(OpenAiShapes::file).toList(),
        from + limit < mine.size()));
  }

  /** The {@code limit} parameter, or null once a 400 was sent. */
  private static Integer limit(RoutingContext ctx, int dflt, int max) {
    String l = ctx.request().getParam("limit");
    if (l == null) {
      return dflt;
    }
    int limit;
    try {
      limit = Integer.parseInt(l);
    } catch (NumberFormatException e) {
      limit = -1;
    }
    if (limit < 1 || limit > max) {
      BatchApi.send(ctx, 400,
          new OpenAiError("limit must be an integer from 1 to " + max, ErrorCode.Type.INVALID_REQUEST, "limit", null));
      return null;
    }
    return limit;
  }
}
