package io.llmgw.extproc.server;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.config.core.v3.Metadata;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.tenancy.controller.TenantIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reading ext_proc header maps and metadata: header values arrive in {@code raw_value} or {@code value}. */
final class IncomingRequest {
  private IncomingRequest() {}

  static Map<String, String> headers(HeaderMap map) {
    Map<String, String> out = new HashMap<>(map.getHeadersCount() * 2);
    for (HeaderValue h : map.getHeadersList()) {
      out.put(h.getKey().toLowerCase(Locale.ROOT), value(h));
    }
    return out;
  }

  /** One header's value (name in lower case), or null: for a response, where two headers matter and no map is built. */
  static String header(HeaderMap map, String name) {
    for (int i = 0; i < map.getHeadersCount(); i++) {
      HeaderValue h = map.getHeaders(i);
      if (h.getKey().equalsIgnoreCase(name)) {
        return value(h);
      }
    }
    return null;
  }

  private static String value(HeaderValue h) {
    return h.getRawValue().isEmpty() ? h.getValue() : h.getRawValue().toString(StandardCharsets.UTF_8);
  }

  static List<String> spoofedRoutingHeaders(Map<String, String> headers) {
    List<String> out = new ArrayList<>(0);
    for (String name : headers.keySet()) {
      if (EppProtocol.isSpoofable(name)) {
        out.add(name);
      }
    }
    return out;
  }

  /** Adds the tenant headers the request carries, which are the gateway's and never reach the pod. */
  static void gatewayHeaders(Map<String, String> headers, TenantIdentity identity, List<String> removed) {
    for (String name : headers.keySet()) {
      if (identity.isGatewayHeader(name)) {
        removed.add(name);
      }
    }
  }

  /** The proxy's subset hint, or null when it sent none. A list value, or one comma-separated string. */
  static Set<String> subsetHint(Metadata metadata) {
    Struct ns = metadata.getFilterMetadataMap().get(EppProtocol.SUBSET_HINT_NAMESPACE);
    if (ns == null) {
      return null;
    }
    Value v = ns.getFieldsMap().get(EppProtocol.DESTINATION_SUBSET);
    if (v == null) {
      return null;
    }
    Set<String> out = new LinkedHashSet<>();
    if (v.hasListValue()) {
      for (Value item : v.getListValue().getValuesList()) {
        addAddresses(out, item.getStringValue());
      }
    } else {
      addAddresses(out, v.getStringValue());
    }
    return out;
  }

  /**
   * GIE's conformance hook ({@code test-epp-endpoint-selection: ip[:port],…}): the candidates the request may go to,
   * in place of the proxy's subset hint (as GIE's conformance EPPs take it); null without the header.
   */
  static Set<String> testSelection(Map<String, String> headers) {
    String v = headers.get(EppProtocol.TEST_ENDPOINT_SELECTION);
    if (v == null || v.isBlank()) {
      return null;
    }
    Set<String> out = new LinkedHashSet<>();
    addAddresses(out, v);
    return out;
  }

  /** The endpoint the proxy actually used (after any fallback), or null. */
  static String servedEndpoint(Metadata metadata) {
    Struct ns = metadata.getFilterMetadataMap().get(EppProtocol.LB_NAMESPACE);
    if (ns == null) {
      return null;
    }
    Value v = ns.getFieldsMap().get(EppProtocol.DESTINATION_SERVED);
    return v == null || v.getStringValue().isBlank() ? null : v.getStringValue().trim();
  }

  private static void addAddresses(Set<String> out, String csv) {
    for (String part : csv.split(",")) {
      if (!part.isBlank()) {
        out.add(part.trim());
      }
    }
  }
}
