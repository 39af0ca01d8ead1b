package io.llmgw.extproc.server;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.llmgw.api.EppProtocol;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.control.cluster.ClusterConfigSource;
import java.time.Clock;
import java.time.Duration;

/** A real EPP in cluster mode against the mock API server, on ephemeral loopback ports, with a gRPC client to it. */
final class ClusterEpp implements AutoCloseable {
  final Epp epp;
  final ManagedChannel channel;
  final ExternalProcessorGrpc.ExternalProcessorStub stub;

  ClusterEpp(KubernetesClient client, String namespace, String identity, boolean leaderElection) throws Exception {
    var cluster = SourceSettings.Cluster.defaults(namespace, identity).withLeaderElection(leaderElection)
        .withLeaseTimings(Duration.ofMillis(1500), Duration.ofMillis(1000), Duration.ofMillis(200),
            Duration.ofMillis(200));
    // these tests are about the control loop: requests answer at once (flow control has its own tests)
    EppSettings settings = EppSettings.defaults(cluster).onLoopbackEphemeralPorts();
    epp = Epp.start(settings.withFlow(settings.flow().disabled(), settings.saturation()), Clock.systemUTC(), client);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", epp.grpcPort()).usePlaintext().build();
    stub = ExternalProcessorGrpc.newStub(channel);
  }

  ClusterConfigSource source() {
    return (ClusterConfigSource) epp.configSource();
  }

  /** Sends one chat request for {@code model}; returns the destination header, or "HTTP nnn" for an immediate answer. */
  String route(String model) throws InterruptedException {
    return routeWithObjective(model, null);
  }

  /** As {@link #route}, naming an InferenceObjective in {@code x-gateway-inference-objective} unless null. */
  String routeWithObjective(String model, String objective) throws InterruptedException {
    ExtProcCall call = ExtProcCall.open(stub);
    try {
      var headers = new java.util.HashMap<String, String>(java.util.Map.of(":method", "POST", ":path",
          "/v1/chat/completions"));
      if (objective != null) {
        headers.put(EppProtocol.OBJECTIVE, objective);
      }
      call.send(ExtProcCall.requestHeaders(headers, false,
          io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode.BodySendMode.FULL_DUPLEX_STREAMED,
          null));
      call.send(ExtProcCall.requestBody(ExtProcIntegrationTest.chat(model), true));
      var r = call.next();
      if (r.hasImmediateResponse()) {
        return "HTTP " + r.getImmediateResponse().getStatus().getCodeValue();
      }
      return ExtProcCall.setHeader(r, EppProtocol.DESTINATION);
    } finally {
      call.cancel();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    epp.close();
  }
}
