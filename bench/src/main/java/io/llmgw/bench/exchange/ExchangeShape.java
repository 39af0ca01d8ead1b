package io.llmgw.bench.exchange;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProtocolConfiguration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames of one exchange as Envoy sends them in FULL_DUPLEX_STREAMED mode, built once and sent by every stream:
 * request headers, the body in frames, then response headers and the response body in frames. The "small" and "long"
 * shapes end with a one-frame JSON response (what a non-streaming completion returns); the "whole" shape streams
 * {@code chunks} SSE events shaped like OpenAI's chat completion chunks, the usage chunk last, then {@code [DONE]}.
 */
record ExchangeShape(String name, List<ProcessingRequest> request, List<ProcessingRequest> response) {
  static final String MODEL = "adapter-1";

  static ExchangeShape small() {
    return new ExchangeShape("small", request(chatBody(0), 16 * 1024), jsonResponse());
  }

  static ExchangeShape longPrompt(int bytes, int frameBytes) {
    return new ExchangeShape("long", request(chatBody(bytes), frameBytes), jsonResponse());
  }

  static ExchangeShape whole(int chunks) {
    return new ExchangeShape("whole", request(chatBody(0), 16 * 1024), sseResponse(chunks));
  }

  int requestBytes() {
    return request.stream().mapToInt(f -> f.getRequestBody().getBody().size()).sum();
  }

  String describe() {
    int frames = request.size() - 1;
    String req = String.format("%,d B request in %d frame%s", requestBytes(), frames, frames == 1 ? "" : "s");
    return response.size() > 2 ? req + ", " + (response.size() - 1) + " response frames (SSE)"
        : req + ", one JSON response frame";
  }

  private static List<ProcessingRequest> request(byte[] body, int frameBytes) {
    List<ProcessingRequest> frames = new ArrayList<>();
    frames.add(ProcessingRequest.newBuilder()
        .setRequestHeaders(HttpHeaders.newBuilder().setHeaders(HeaderMap.newBuilder()
            .addHeaders(header(":method", "POST")).addHeaders(header(":path", "/v1/chat/completions"))
            .addHeaders(header(":authority", "gateway")).addHeaders(header("content-type", "application/json"))
            .addHeaders(header("x-request-id", "00000000-0000-4000-8000-000000000000"))))
        .setProtocolConfig(ProtocolConfiguration.newBuilder()
            .setRequestBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
            .setResponseBodyMode(BodySendMode.FULL_DUPLEX_STREAMED))
        .build());
    for (int off = 0; off < body.length; off += frameBytes) {
      int n = Math.min(frameBytes, body.length - off);
      frames.add(ProcessingRequest.newBuilder().setRequestBody(HttpBody.newBuilder()
          .setBody(ByteString.copyFrom(body, off, n)).setEndOfStream(off + n == body.length)).build());
    }
    return List.copyOf(frames);
  }

  private static List<ProcessingRequest> jsonResponse() {
    String body = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1764115200,\"model\":\"" + MODEL
        + "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello! How can I help?\"},"
        + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":7,\"total_tokens\":507}}";
    return List.of(responseHeaders("application/json"), responseBody(body, true));
  }

  private static List<ProcessingRequest> sseResponse(int chunks) {
    List<ProcessingRequest> frames = new ArrayList<>();
    frames.add(responseHeaders("text/event-stream; charset=utf-8"));
    String head = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764115200,\"model\":\""
        + MODEL + "\",\"choices\":";
    for (int i = 0; i < chunks - 1; i++) {
      String delta = i == 0 ? "{\"role\":\"assistant\",\"content\":\"\"}" : "{\"content\":\" token" + i + "\"}";
      frames.add(responseBody(head + "[{\"index\":0,\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":"
          + (i == chunks - 2 ? "\"stop\"" : "null") + "}]}\n\n", false));
    }
    frames.add(responseBody(head + "[],\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":" + (chunks - 1)
        + ",\"total_tokens\":" + (500 + chunks - 1) + "}}\n\ndata: [DONE]\n\n", true));
    return List.copyOf(frames);
  }

  private static ProcessingRequest responseHeaders(String contentType) {
    return ProcessingRequest.newBuilder().setResponseHeaders(HttpHeaders.newBuilder().setHeaders(HeaderMap.newBuilder()
        .addHeaders(header(":status", "200")).addHeaders(header("content-type", contentType)))).build();
  }

  private static ProcessingRequest responseBody(String body, boolean endOfStream) {
    return ProcessingRequest.newBuilder().setResponseBody(HttpBody.newBuilder()
        .setBody(ByteString.copyFromUtf8(body)).setEndOfStream(endOfStream)).build();
  }

  private static HeaderValue header(String k, String v) {
    return HeaderValue.newBuilder().setKey(k).setRawValue(ByteString.copyFromUtf8(v)).build();
  }

  /** A chat request of about {@code bytes} (its user message a long document), or the ~1.7 KiB one when 0. */
  static byte[] chatBody(int bytes) {
    if (bytes <= 0) {
      return ("{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"system\",\"content\":\""
          + "You are a helpful assistant. ".repeat(56)
          + "\"},{\"role\":\"user\",\"content\":\"Hello\"}],\"max_tokens\":64,\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true}}").getBytes(StandardCharsets.UTF_8);
    }
    String head = "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful "
        + "assistant.\"},{\"role\":\"user\",\"content\":\"";
    String tail = "\"}],\"max_tokens\":64}";
    StringBuilder doc = new StringBuilder(bytes);
    while (doc.length() < bytes - head.length() - tail.length()) {
      doc.append("The quarterly report shows revenue growth in every region. ");
    }
    doc.setLength(Math.max(0, bytes - head.length() - tail.length()));
    return (head + doc + tail).getBytes(StandardCharsets.UTF_8);
  }
}
