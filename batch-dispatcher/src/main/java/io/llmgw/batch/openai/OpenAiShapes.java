package io.llmgw.batch.openai;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.LineError;
import io.llmgw.batch.store.RequestCounts;
import io.llmgw.batch.store.StoredFile;
import java.util.List;
import java.util.Map;

/** OpenAI's JSON for files, batches, lists and errors. */
final class OpenAiShapes {
  static final ObjectMapper JSON = new ObjectMapper();

  private OpenAiShapes() {}

  static ObjectNode file(StoredFile f) {
    ObjectNode n = JSON.createObjectNode();
    n.put("id", f.id());
    n.put("object", "file");
    n.put("bytes", f.bytes());
    n.put("created_at", f.createdAt());
    n.put("filename", f.filename());
    n.put("purpose", f.purpose());
    n.put("status", "processed");
    return n;
  }

  static ObjectNode batch(Batch b, RequestCounts counts) {
    ObjectNode n = JSON.createObjectNode();
    n.put("id", b.id());
    n.put("object", "batch");
    n.put("endpoint", b.endpoint());
    if (b.errors().isEmpty()) {
      n.putNull("errors");
    } else {
      ObjectNode errors = n.putObject("errors");
      errors.put("object", "list");
      ArrayNode data = errors.putArray("data");
      for (LineError e : b.errors()) {
        ObjectNode d = data.addObject();
        d.put("code", e.code());
        d.put("message", e.message());
        if (e.param() == null) {
          d.putNull("param");
        } else {
          d.put("param", e.param());
        }
        if (e.line() == null) {
          d.putNull("line");
        } else {
          d.put("line", e.line());
        }
      }
    }
    n.put("input_file_id", b.inputFileId());
    n.put("completion_window", b.completionWindow());
    n.put("status", b.status().wire());
    putNullable(n, "output_file_id", b.outputFileId());
    putNullable(n, "error_file_id", b.errorFileId());
    n.put("created_at", b.createdAt());
    putTime(n, "in_progress_at", b.inProgressAt());
    n.put("expires_at", b.expiresAt());
    putTime(n, "finalizing_at", b.finalizingAt());
    putTime(n, "completed_at", b.completedAt());
    putTime(n, "failed_at", b.failedAt());
    putTime(n, "expired_at", b.expiredAt());
    putTime(n, "cancelling_at", b.cancellingAt());
    putTime(n, "cancelled_at", b.cancelledAt());
    ObjectNode c = n.putObject("request_counts");
    c.put("total", counts.total());
    c.put("completed", counts.completed());
    c.put("failed", counts.failed());
    ObjectNode usage = n.putObject("usage"); // as OpenAI's batch object has it, from the answers' usage
    usage.put("input_tokens", counts.inputTokens());
    usage.putObject("input_tokens_details").put("cached_tokens", 0);
    usage.put("output_tokens", counts.outputTokens());
    usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
    usage.put("total_tokens", counts.inputTokens() + counts.outputTokens());
    ObjectNode meta = n.putObject("metadata");
    for (Map.Entry<String, String> e : b.metadata().entrySet()) {
      meta.put(e.getKey(), e.getValue());
    }
    return n;
  }

  static ObjectNode list(List<ObjectNode> items, boolean hasMore) {
    ObjectNode n = JSON.createObjectNode();
    n.put("object", "list");
    ArrayNode data = n.putArray("data");
    items.forEach(data::add);
    putNullable(n, "first_id", items.isEmpty() ? null : items.getFirst().get("id").asText());
    putNullable(n, "last_id", items.isEmpty() ? null : items.getLast().get("id").asText());
    n.put("has_more", hasMore);
    return n;
  }

  private static void putNullable(ObjectNode n, String field, String value) {
    if (value == null) {
      n.putNull(field);
    } else {
      n.put(field, value);
    }
  }

  private static void putTime(ObjectNode n, String field, Long value) {
    if (value == null) {
      n.putNull(field);
    } else {
      n.put(field, value.longValue());
    }
  }
}
