package io.llmgw.extproc.server;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.stub.StreamObserver;

/** {@code envoy.service.ext_proc.v3.ExternalProcessor}: one {@link ExtProcStream} per HTTP request. */
public final class ExtProcService extends ExternalProcessorGrpc.ExternalProcessorImplBase {
  private final StreamDeps deps;

  public ExtProcService(StreamDeps deps) {
    this.deps = deps;
  }

  @Override
  public StreamObserver<ProcessingRequest> process(StreamObserver<ProcessingResponse> responses) {
    return new ExtProcStream(responses, deps);
  }
}
