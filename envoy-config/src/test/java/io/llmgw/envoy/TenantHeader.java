package io.llmgw.envoy;

import io.envoyproxy.envoy.extensions.filters.http.header_mutation.v3.HeaderMutation;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.llmgw.api.EppProtocol;

/** Issue 31: what the shipped Envoy configurations must do with a client's tenant header. */
public final class TenantHeader {
  private TenantHeader() {}

  /** Whether the first HTTP filter removes {@link EppProtocol#TENANT} from every request, before anything reads it. */
  public static boolean removedFirst(HttpConnectionManager hcm) throws Exception {
    var first = hcm.getHttpFilters(0);
    if (!first.getName().equals("envoy.filters.http.header_mutation")) {
      return false;
    }
    HeaderMutation m = first.getTypedConfig().unpack(HeaderMutation.class);
    return m.getMutations().getRequestMutationsList().stream()
        .anyMatch(r -> r.getRemove().equals(EppProtocol.TENANT));
  }
}
