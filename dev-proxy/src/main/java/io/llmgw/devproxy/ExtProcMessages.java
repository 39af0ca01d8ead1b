package io.llmgw.devproxy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.config.core.v3.Metadata;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.BodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HeadersResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProtocolConfiguration;
import io.envoyproxy.envoy.service.ext_proc.v3.StreamedBodyResponse;
import io.llmgw.api.EppProtocol;
import io.vertx.core.MultiMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The ext_proc messages Envoy sends with our filter configuration, and the header mutations it applies. */
final class ExtProcMessages {
  private static final ProtocolConfiguration FULL_DUPLEX = ProtocolConfiguration.newBuilder()
      .setRequestBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
      .setResponseBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
      .build();

  private ExtProcMessages() {}

  static ProcessingRequest requestHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setRequestHeaders(HttpHeaders.newBuilder().setHeaders(headerMap(headers)).setEndOfStream(endOfStream))
        .setProtocolConfig(FULL_DUPLEX)
        .build();
  }

  static ProcessingRequest requestBody(ByteString chunk, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setRequestBody(HttpBody.newBuilder().setBody(chunk).setEndOfStream(endOfStream)).build();
  }

  /** Response headers, with the endpoint that actually served the request in {@code envoy.lb} metadata. */
  static ProcessingRequest responseHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream,
      String served) {
    ProcessingRequest.Builder b = ProcessingRequest.newBuilder()
        .setResponseHeaders(HttpHeaders.newBuilder().setHeaders(headerMap(headers)).setEndOfStream(endOfStream));
    if (served != null) {
      b.setMetadataContext(Metadata.newBuilder().putFilterMetadata(EppProtocol.LB_NAMESPACE, Struct.newBuilder()
          .putFields(EppProtocol.DESTINATION_SERVED, Value.newBuilder().setStringValue(served).build()).build()));
    }
    return b.build();
  }

  /**
   * What an ext_proc server that changes nothing answers to {@code r}: how a request goes on without the EPP once it
   * has failed open.
   */
  static ProcessingResponse passThrough(ProcessingRequest r) {
    return switch (r.getRequestCase()) {
      case REQUEST_HEADERS -> ProcessingResponse.newBuilder()
          .setRequestHeaders(HeadersResponse.getDefaultInstance()).build();
      case REQUEST_BODY -> ProcessingResponse.newBuilder().setRequestBody(BodyResponse.newBuilder()
          .setResponse(echo(r.getRequestBody()))).build();
      case RESPONSE_HEADERS -> ProcessingResponse.newBuilder()
          .setResponseHeaders(HeadersResponse.getDefaultInstance()).build();
      case RESPONSE_BODY -> ProcessingResponse.newBuilder().setResponseBody(BodyResponse.newBuilder()
          .setResponse(echo(r.getResponseBody()))).build();
      default -> ProcessingResponse.getDefaultInstance();
    };
  }

  private static CommonResponse echo(HttpBody body) {
    return CommonResponse.newBuilder().setBodyMutation(BodyMutation.newBuilder().setStreamedResponse(
        StreamedBodyResponse.newBuilder().setBody(body.getBody()).setEndOfStream(body.getEndOfStream()))).build();
  }

  static ProcessingRequest responseBody(ByteString chunk, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setResponseBody(HttpBody.newBuilder().setBody(chunk).setEndOfStream(endOfStream)).build();
  }

  /** The ordered destination list from {@code envoy.lb} metadata, or null when the EPP set none. */
  static List<String> destinations(Struct dynamicMetadata) {
    Value ns = dynamicMetadata.getFieldsMap().get(EppProtocol.LB_NAMESPACE);
    if (ns == null || !ns.hasStructValue()) {
      return null;
    }
    Value v = ns.getStructValue().getFieldsMap().get(EppProtocol.DESTINATION);
    return v == null ? null : split(v.getStringValue());
  }

  static List<String> split(String csv) {
    List<String> out = new ArrayList<>();
    for (String part : csv.split(",")) {
      if (!part.isBlank()) {
        out.add(part.trim());
      }
    }
    return out;
  }

  /** Applies removals, then sets (overwrite or append as the option says). Values come from raw_value. */
  static void apply(HeaderMutation mutation, MultiMap headers) {
    for (String name : mutation.getRemoveHeadersList()) {
      headers.remove(name);
    }
    for (HeaderValueOption option : mutation.getSetHeadersList()) {
      HeaderValue h = option.getHeader();
      String value = h.getRawValue().isEmpty() ? h.getValue() : h.getRawValue().toString(StandardCharsets.UTF_8);
      String key = h.getKey();
      switch (option.getAppendAction()) {
        case APPEND_IF_EXISTS_OR_ADD -> headers.add(key, value);
        case ADD_IF_ABSENT -> {
          if (!headers.contains(key)) {
            headers.add(key, value);
          }
        }
        case OVERWRITE_IF_EXISTS -> {
          if (headers.contains(key)) {
            headers.set(key, value);
          }
        }
        default -> headers.set(key, value);
      }
    }
  }

  static List<Map.Entry<String, String>> entries(MultiMap headers) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (Map.Entry<String, String> e : headers) {
      out.add(Map.entry(e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
    }
    return out;
  }

  private static HeaderMap headerMap(List<Map.Entry<String, String>> headers) {
    HeaderMap.Builder m = HeaderMap.newBuilder();
    for (Map.Entry<String, String> e : headers) {
      m.addHeaders(HeaderValue.newBuilder().setKey(e.getKey())
          .setRawValue(ByteString.copyFrom(e.getValue(), StandardCharsets.UTF_8)));
    }
    return m.build();
  }
}
