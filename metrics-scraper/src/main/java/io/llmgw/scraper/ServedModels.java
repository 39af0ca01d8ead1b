package io.llmgw.scraper;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/** What {@code GET /v1/models} says a server holds: base models, and adapters (entries whose {@code parent} is set). */
public record ServedModels(Set<String> baseModels, Set<String> adapters) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final ServedModels UNKNOWN = new ServedModels(Set.of(), Set.of());

  public static ServedModels parse(String body) throws IOException {
    JsonNode root = JSON.readTree(body);
    JsonNode data = root == null ? null : root.get("data");
    if (data == null || !data.isArray()) {
      throw new IOException("/v1/models answer has no 'data' list");
    }
    Set<String> bases = new HashSet<>();
    Set<String> adapters = new HashSet<>();
    for (JsonNode m : data) {
      JsonNode id = m.get("id");
      if (id == null || !id.isTextual()) {
        continue;
      }
      JsonNode parent = m.get("parent");
      if (parent != null && parent.isTextual() && !parent.asText().equals(id.asText())) {
        adapters.add(id.asText());
      } else {
        bases.add(id.asText());
      }
    }
    return new ServedModels(Set.copyOf(bases), Set.copyOf(adapters));
  }
}
