package io.llmgw.extproc.server;

import io.llmgw.api.ErrorCode;
import io.llmgw.extproc.reply.ErrorReply;
import io.llmgw.extproc.state.Topology;
import java.util.Map;

/**
 * What the EPP answers a request that has no body, and so names no model: {@code GET /v1/models} and {@code
 * /v1/models/{model}} from the routes, {@code GET /health} that the gateway is up, an inference path that its body is
 * missing, and any other path that the gateway does not serve it.
 *
 * @param json a 200's body (with {@code details} for the proxy's log), or null when the answer is {@code error}
 */
record BodylessAnswer(String json, String details, ErrorReply error) {
  /** @param tenant the caller's tenant (null with tenants off): it sees only the models its budget may use */
  static BodylessAnswer to(Map<String, String> headers, Topology topology, String tenant) {
    String path = headers.getOrDefault(":path", "");
    String method = headers.getOrDefault(":method", "");
    boolean get = "GET".equals(method);
    if (get && (path.equals("/v1/models") || path.startsWith("/v1/models?"))) {
      return ok(ModelList.json(topology, tenant), "model_list");
    }
    if (get && path.startsWith("/v1/models/")) {
      String model = ModelList.modelOf(path);
      String found = model == null ? null : ModelList.one(topology, tenant, model);
      return found != null ? ok(found, "model") : error(ErrorReply.modelNotFound(model == null ? path : model));
    }
    if (get && (path.equals("/health") || path.startsWith("/health?"))) {
      return ok("{\"status\":\"ok\"}", "health");
    }
    if (RequestShape.INFERENCE_PATHS.contains(path.split("\\?", 2)[0])) {
      return error(
          ErrorReply.badRequest(ErrorCode.MISSING_MODEL, "request has no body; a JSON body with 'model' is required"));
    }
    return error(ErrorReply.noSuchEndpoint(method, path));
  }

  private static BodylessAnswer ok(String json, String details) {
    return new BodylessAnswer(json, details, null);
  }

  private static BodylessAnswer error(ErrorReply reply) {
    return new BodylessAnswer(null, null, reply);
  }
}
