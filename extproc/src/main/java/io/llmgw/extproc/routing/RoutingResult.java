package io.llmgw.extproc.routing;

import com.google.protobuf.ByteString;
import io.llmgw.api.LLMRoute;
import io.llmgw.extproc.flow.Ticket;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.picker.Decision;
import io.llmgw.picker.latency.LoadSnapshot;
import java.util.concurrent.CompletableFuture;

/** Where a request goes, or why the EPP answers it itself, or what it waits for. */
public sealed interface RoutingResult {
  /**
   * @param requestedModel what the client sent
   * @param choice the concrete model the pod serves (differs when the route splits, the header rewrites, or the
   *     route is model-less)
   * @param body the body to forward: the original, or one with {@code model} replaced by the target
   * @param loadAtPick the chosen pod's load when it was picked, for the latency model
   * @param promptTokens the prompt's size as estimated for the latency model
   */
  record Routed(LLMRoute route, String requestedModel, Choice choice, Decision decision, InFlightTracker.Lease lease,
      ByteString body, LoadSnapshot loadAtPick, long promptTokens) implements RoutingResult {
    public String target() {
      return choice.target();
    }

    public boolean rewritten() {
      return !requestedModel.equals(choice.target());
    }
  }

  record Rejected(ErrorReply reply, LLMRoute route) implements RoutingResult {}

  /**
   * The target is an adapter no reachable pod holds: {@code address} completes with the pod it was loaded on (shared
   * with every other request waiting for it), and the request is then routed there.
   */
  record AwaitingLoad(LLMRoute route, Choice choice, CompletableFuture<String> address) implements RoutingResult {
    public String target() {
      return choice.target();
    }
  }

  /** The pool has no room (or no pod can meet the objective yet): the request waits in flow control. */
  record Queued(LLMRoute route, Choice choice, Ticket ticket) implements RoutingResult {}
}
