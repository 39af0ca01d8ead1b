package io.llmgw.bench;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProtocolConfiguration;
import io.llmgw.api.FileModeYaml;
import java.nio.charset.StandardCharsets;

/** Ext_proc frames and a pool file for the load runs that drive an EPP with Envoy's messages. */
public final class ExtProcFrames {
  private ExtProcFrames() {}

  /** A chat completion's request headers, as Envoy sends them in FULL_DUPLEX_STREAMED mode. */
  public static ProcessingRequest postHeaders() {
    return ProcessingRequest.newBuilder()
        .setRequestHeaders(HttpHeaders.newBuilder().setHeaders(HeaderMap.newBuilder()
            .addHeaders(header(":method", "POST")).addHeaders(header(":path", "/v1/chat/completions"))))
        .setProtocolConfig(ProtocolConfiguration.newBuilder()
            .setRequestBodyMode(BodySendMode.FULL_DUPLEX_STREAMED)
            .setResponseBodyMode(BodySendMode.FULL_DUPLEX_STREAMED))
        .build();
  }

  public static ProcessingRequest requestBody(ByteString bytes, boolean endOfStream) {
    return ProcessingRequest.newBuilder()
        .setRequestBody(HttpBody.newBuilder().setBody(bytes).setEndOfStream(endOfStream)).build();
  }

  private static HeaderValue header(String k, String v) {
    return HeaderValue.newBuilder().setKey(k).setRawValue(ByteString.copyFromUtf8(v)).build();
  }

  public static byte[] chatBody() {
    return ("{\"model\":\"adapter-1\",\"messages\":[{\"role\":\"system\",\"content\":\""
        + "You are a helpful assistant. ".repeat(60)
        + "\"},{\"role\":\"user\",\"content\":\"Hello\"}],\"max_tokens\":64}")
        .getBytes(StandardCharsets.UTF_8);
  }

  public static String yaml(StaticPods pods) {
    StringBuilder sb = new StringBuilder(
        FileModeYaml.pool("pool", "sim", Integer.parseInt(pods.address(0).split(":")[1])))
        .append(FileModeYaml.SEPARATOR).append("""
            apiVersion: inference.x-k8s.io/v1alpha1
            kind: LLMRoute
            metadata: {name: a1}
            spec: {backendRefs: [{name: pool}], adapter: {name: adapter-1}}
            """);
    for (int i = 0; i < pods.size(); i++) {
      sb.append(FileModeYaml.SEPARATOR).append(FileModeYaml.pod("pod-" + i, "sim", StaticPods.ip(i)));
    }
    return sb.toString();
  }
}
