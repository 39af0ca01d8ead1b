package io.llmgw.envoy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import java.io.IOException;

/**
 * Reads an Envoy bootstrap YAML into Envoy's own {@link Bootstrap} proto. Every {@code @type} must be one of the types
 * the gateway's configurations use; an unknown field, enum value or type fails, as it would in Envoy.
 */
public final class EnvoyBootstrap {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final JsonFormat.TypeRegistry TYPES = JsonFormat.TypeRegistry.newBuilder()
      .add(HttpConnectionManager.getDescriptor())
      .add(ExternalProcessor.getDescriptor())
      .add(io.envoyproxy.envoy.extensions.filters.http.header_mutation.v3.HeaderMutation.getDescriptor())
      .add(ExtProcPerRoute.getDescriptor())
      .add(Router.getDescriptor())
      .add(HttpProtocolOptions.getDescriptor())
      .add(RoundRobin.getDescriptor())
      .add(OverrideHostType.descriptor())
      .add(io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.getDescriptor())
      .build();

  private EnvoyBootstrap() {}

  public static Bootstrap parse(String yaml) throws IOException {
    String json = JSON.writeValueAsString(YAML.readTree(yaml));
    Bootstrap.Builder b = Bootstrap.newBuilder();
    try {
      JsonFormat.parser().usingTypeRegistry(TYPES).merge(json, b);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("not a valid Envoy bootstrap: " + e.getMessage(), e);
    }
    return b.build();
  }
}
