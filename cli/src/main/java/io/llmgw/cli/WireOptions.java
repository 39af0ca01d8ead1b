package io.llmgw.cli;

import io.llmgw.extproc.server.WireHooks;
import picocli.CommandLine.Option;

/** {@code serve}'s flags for what llm-d's and GIE's tools ask the EPP to add to its answers. */
final class WireOptions {
  @Option(names = "--emit-endpoint-scores", description = "Put every scored candidate's weighted score in the routing "
      + "answer's envoy.lb metadata (x-gateway-destination-endpoint-scores: {\"ip:port\": score}), as llm-d's router "
      + "does with the same flag. Off by default.")
  boolean emitEndpointScores;

  @Option(names = "--conformance-test-hooks", description = "For GIE conformance runs only: honour the "
      + "test-epp-endpoint-selection request header (ip or ip:port, comma-separated: the only candidates) and echo the "
      + "served endpoint in x-conformance-test-served-endpoint. Any client could then choose its pod. Off by default.")
  boolean conformanceTestHooks;

  WireHooks hooks() {
    return new WireHooks(emitEndpointScores, conformanceTestHooks);
  }
}
