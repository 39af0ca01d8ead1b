package io.llmgw.envoy;

import io.envoyproxy.envoy.extensions.filters.http.header_mutation.v3.HeaderMutation;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.llmgw.api.EppProtocol;

/** What the shipped Envoy configurations must do with a client's tenant header (issue 31) and prefill pod header. */
public final class TenantHeader {
  private TenantHeader() {}

  /**
   * Whether the first HTTP filter removes {@link EppProtocol#TENANT} and {@link EppProtocol#PREFILLER} from every
   * request, before anything reads them.
   */
  public static boolean removedFirst(HttpConnectionManager hcm) throws Exception {
    return removedFirst(hcm, EppProtocol.TENANT) && removedFirst(hcm, EppProtocol.PREFILLER);
  }

  private static boolean removedFirst(HttpConnectionManager hcm, String header) throws Exception {
    var first = hcm.getHttpFilters(0);
    if (!first.getName().equals("envoy.filters.http.header_mutation")) {
      return false;
    }
    HeaderMutation m = first.getTypedConfig().unpack(HeaderMutation.class);
    return m.getMutations().getRequestMutationsList().stream()
        .anyMatch(r -> r.getRemove().equals(header));
  }
}
