package io.llmgw.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmgw.batch.client.BatchClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The quickstart's batch: a few chat requests submitted through the OpenAI Batch API at the front door while the
 * interactive demonstration runs, then its result counts.
 */
final class QuickstartBatch {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BatchClient client;
  private final int lines;
  private String id;

  /** @param bearer the tenant's key the batch is submitted with; null without tenants */
  QuickstartBatch(String frontDoor, int lines, String bearer) {
    this.client = new BatchClient(frontDoor, bearer);
    this.lines = lines;
  }

  /** Uploads the file and creates the batch; says so, or why it could not. */
  void submit(PrintStream out, List<String> models) {
    StringBuilder jsonl = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      var body = JSON.createObjectNode().put("model", models.get(i % models.size())).put("max_tokens", 16);
      body.putArray("messages").addObject().put("role", "user").put("content", "Summarise item " + i);
      jsonl.append(JSON.createObjectNode().put("custom_id", "item-" + i).put("method", "POST")
          .put("url", "/v1/chat/completions").set("body", body).toString()).append('\n');
    }
    try {
      String file = client.upload("quickstart-batch.jsonl", jsonl.toString().getBytes(StandardCharsets.UTF_8));
      id = client.create(file, "/v1/chat/completions");
      out.printf("  batch: %d chat requests submitted through the OpenAI Batch API as %s (sheddable: they fill the "
          + "capacity interactive traffic leaves)%n", lines, id);
    } catch (IOException e) {
      out.println("  batch: could not be submitted: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits (a minute at most) for the batch to end and prints its counts. */
  void report(PrintStream out) {
    if (id == null) {
      return;
    }
    try {
      JsonNode b = client.awaitDone(id, Duration.ofSeconds(60));
      JsonNode c = b.path("request_counts");
      long took = b.path("completed_at").asLong(0) - b.path("created_at").asLong(0);
      out.printf("%nBatch %s: %s, %d requests: %d completed, %d failed%s; output file %s%n", id,
          b.path("status").asText(), c.path("total").asInt(), c.path("completed").asInt(), c.path("failed").asInt(),
          b.path("completed_at").isNumber() ? ", done within " + (took + 1) + " s of submission" : "",
          b.path("output_file_id").asText("-"));
    } catch (IOException e) {
      out.println("Batch " + id + ": cannot be read: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      client.close();
    }
  }
}
