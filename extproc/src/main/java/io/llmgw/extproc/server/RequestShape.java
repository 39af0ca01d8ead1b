package io.llmgw.extproc.server;

import io.llmgw.api.ClientText;
import io.llmgw.api.ErrorCode;
import io.llmgw.extproc.reply.ErrorReply;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What an inference request must look like before its body is read: a POST, and, when it names a content type, JSON.
 * A {@code GET /v1/chat/completions} was answered "missing model", and a form-encoded body (curl's {@code -d} default)
 * was read as JSON as long as it parsed; both now get the answer that names what is wrong.
 */
final class RequestShape {
  static final Set<String> INFERENCE_PATHS = Set.of("/v1/chat/completions", "/v1/completions", "/v1/embeddings",
      "/v1/responses");

  private RequestShape() {}

  /** The refusal for a request to an inference path that is not a JSON POST; null for anything else. */
  static ErrorReply refusal(Map<String, String> headers) {
    String path = headers.getOrDefault(":path", "");
    int query = path.indexOf('?');
    if (!INFERENCE_PATHS.contains(query < 0 ? path : path.substring(0, query))) {
      return null;
    }
    String method = headers.getOrDefault(":method", "");
    if (!method.equals("POST")) {
      return new ErrorReply(405, ErrorCode.METHOD_NOT_ALLOWED, ClientText.quote(path)
          + " takes POST with a JSON body, not " + ClientText.clean(method));
    }
    String type = headers.get("content-type");
    if (type != null && !isJson(type)) {
      return new ErrorReply(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "the body must be JSON "
          + "(Content-Type: application/json), not " + ClientText.quote(type));
    }
    return null;
  }

  /** {@code GET /health}: whether the gateway is up, which needs no key (the proxy's and the kubelet's probes). */
  static boolean isHealthCheck(Map<String, String> headers) {
    String path = headers.getOrDefault(":path", "");
    return "GET".equals(headers.get(":method")) && (path.equals("/health") || path.startsWith("/health?"));
  }

  /** {@code application/json}, with or without parameters, or an {@code application/…+json} type with a subtype. */
  static boolean isJson(String contentType) {
    int semi = contentType.indexOf(';');
    String media = (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    return JSON_MEDIA.matcher(media).matches();
  }

  /** RFC 6838's subtype characters before {@code +json}. */
  private static final Pattern JSON_MEDIA = Pattern.compile("application/(json|[a-z0-9][a-z0-9!#$&^_.-]*\\+json)");
}
