package io.llmgw.extproc.routing;

import com.google.protobuf.ByteString;
import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.picker.Decision;

/** Where a request goes, or why the EPP answers it itself. */
public sealed interface RoutingResult {
  /**
   * @param requestedModel what the client sent
   * @param target the concrete model the pod serves (differs when the route splits or the header rewrites)
   * @param body the body to forward: the original, or one with {@code model} replaced by the target
   */
  record Routed(LLMRoute route, String requestedModel, String target, Decision decision, InFlightTracker.Lease lease,
      ByteString body) implements RoutingResult {
    public boolean rewritten() {
      return !requestedModel.equals(target);
    }
  }

  record Rejected(ErrorReply reply, LLMRoute route) implements RoutingResult {}

  /**
   * The target is an adapter no reachable pod holds: {@code address} completes with the pod it was loaded on (shared
   * with every other request waiting for it), and the request is then routed there.
   */
  record AwaitingLoad(LLMRoute route, String target, java.util.concurrent.CompletableFuture<String> address)
      implements RoutingResult {}
}
