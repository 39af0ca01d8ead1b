package io.llmgw.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Turns one Kubernetes object of our kinds, as the API server returns it, into its record with exactly the checks file
 * mode applies, so a cluster and a file can never disagree on what is valid. The exception's source names the object.
 */
public final class ClusterObjects {
  private ClusterObjects() {}

  public static InferencePool pool(JsonNode object) throws ConfigException {
    return Documents.pool(reader("InferencePool", object), object);
  }

  public static LLMRoute route(JsonNode object) throws ConfigException {
    return Documents.route(reader("LLMRoute", object), object);
  }

  public static InferenceObjective objective(JsonNode object) throws ConfigException {
    return Documents.inferenceObjective(reader("InferenceObjective", object), object);
  }

  public static ModelRewrite modelRewrite(JsonNode object) throws ConfigException {
    return LlmdDocuments.modelRewrite(reader("InferenceModelRewrite", object), object);
  }

  public static TenantBudget budget(JsonNode object) throws ConfigException {
    return TenantDocuments.budget(reader("TenantBudget", object), object);
  }

  private static NodeReader reader(String kind, JsonNode object) {
    JsonNode meta = object.path("metadata");
    return new NodeReader(kind + " " + meta.path("namespace").asText("default") + "/" + meta.path("name").asText("?"),
        0);
  }
}
