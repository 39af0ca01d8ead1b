package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Turns a TenantBudget document into its record, field by field (file mode and the cluster alike). */
final class TenantDocuments {
  /** Far above any real budget (a trillion tokens); a larger figure is a typo. */
  static final long MAX_TOKENS = 1_000_000_000_000L;

  private TenantDocuments() {}

  static TenantBudget budget(NodeReader r, JsonNode doc) throws ConfigException {
    JsonNode meta = r.object(doc, "metadata", "metadata");
    String name = r.name(meta, "name", "metadata.name");
    String ns = Documents.namespace(r, meta);
    JsonNode spec = r.object(doc, "spec", "spec");
    r.onlyFields(spec, "spec", Set.of("tokensPerMinute", "tokensPerDay", "maxConcurrentRequests", "routes",
        "priority", "weight", "overBudget", "demotedPriority", "defaultOutputTokens"));
    long perMinute = tokens(r, spec, "tokensPerMinute");
    long perDay = tokens(r, spec, "tokensPerDay");
    int concurrent = r.integer(spec, "maxConcurrentRequests", "spec.maxConcurrentRequests", 1, 1_000_000,
        TenantBudget.UNLIMITED_REQUESTS);
    List<String> routes = null;
    if (spec.has("routes") && !spec.get("routes").isNull()) {
      routes = new ArrayList<>();
      List<JsonNode> nodes = r.list(spec, "routes", "spec.routes", false);
      for (int i = 0; i < nodes.size(); i++) {
        JsonNode n = nodes.get(i);
        String path = "spec.routes[" + i + "]";
        if (!n.isTextual()) {
          throw r.error(path, "must be an LLMRoute's name");
        }
        routes.add(r.name(n.asText(), path));
      }
    }
    Integer priority = spec.hasNonNull("priority")
        ? r.integer(spec, "priority", "spec.priority", -Documents.MAX_PRIORITY, Documents.MAX_PRIORITY, 0)
        : null;
    int weight = r.integer(spec, "weight", "spec.weight", 1, Documents.MAX_WEIGHT, 1);
    String action = r.optionalString(spec, "overBudget", "spec.overBudget");
    OverBudget over = switch (action == null ? "Queue" : action) {
      case "Queue" -> OverBudget.QUEUE;
      case "Demote" -> OverBudget.DEMOTE;
      case "Refuse" -> OverBudget.REFUSE;
      default -> throw r.error("spec.overBudget", ClientText.quote(action) + " is not Queue, Demote or Refuse");
    };
    int demoted = r.integer(spec, "demotedPriority", "spec.demotedPriority", -Documents.MAX_PRIORITY,
        Documents.MAX_PRIORITY, -1);
    int band = priority == null ? Integer.MAX_VALUE : priority;
    if (over == OverBudget.DEMOTE && spec.hasNonNull("demotedPriority") && demoted >= band) {
      throw r.error("spec.demotedPriority", demoted + " is not below the tenant's priority " + band);
    }
    int output = r.integer(spec, "defaultOutputTokens", "spec.defaultOutputTokens", 1, 10_000_000,
        TenantBudget.DEFAULT_OUTPUT_TOKENS);
    return new TenantBudget(ns, name, perMinute, perDay, concurrent, routes, priority, weight, over, demoted, output);
  }

  /**
   * A token limit: absent is none; 0 is a tenant that may spend nothing (every request refused, whatever
   * {@code overBudget} says, since no window will ever take it); negative, fractional or absurd is an error.
   */
  private static long tokens(NodeReader r, JsonNode spec, String field) throws ConfigException {
    JsonNode n = spec.get(field);
    if (n == null || n.isNull()) {
      return TenantBudget.UNLIMITED;
    }
    String path = "spec." + field;
    if (!n.isIntegralNumber()) {
      throw r.error(path, "must be a whole number of tokens");
    }
    if (!n.canConvertToLong() || n.longValue() < 0 || n.longValue() > MAX_TOKENS) {
      throw r.error(path, n.asText().toLowerCase(Locale.ROOT) + " is out of range (0.." + MAX_TOKENS + ")");
    }
    return n.longValue();
  }
}
