package io.llmgw.api;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

/**
 * OpenAI's error body, {@code {"error": {"message", "type", "param", "code"}}}, and its one writer for the EPP, the
 * batch service and the dev proxy (the simulator writes vLLM's own shape). Why the gateway refused a request is said
 * in a header as well ({@link DropReason}): a caller decides from that, never from this body's text.
 *
 * @param type who is at fault, in OpenAI's words ({@code invalid_request_error}, {@code rate_limit_error},
 *     {@code server_error}, ...)
 * @param param the request field at fault, or null
 * @param code a stable machine-readable code, or null
 */
public record OpenAiError(String message, String type, String param, String code) {
  /** The type of an error the gateway answers with this status: the client's below 500, the server's from 500. */
  public static String typeFor(int status) {
    return status >= 500 ? "server_error" : "invalid_request_error";
  }

  public String json() {
    StringBuilder out = new StringBuilder(96 + message.length()).append("{\"error\":{\"message\":");
    quoted(out, message).append(",\"type\":");
    quoted(out, type).append(",\"param\":");
    quoted(out, param).append(",\"code\":");
    return quoted(out, code).append("}}").toString();
  }

  private static StringBuilder quoted(StringBuilder out, String s) {
    if (s == null) {
      return out.append("null");
    }
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, out);
    return out.append('"');
  }
}
