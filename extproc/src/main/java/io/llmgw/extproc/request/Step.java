package io.llmgw.extproc.request;

import io.llmgw.extproc.reply.ErrorReply;
import java.util.concurrent.CompletableFuture;

/** What the lifecycle asks of the stream after running its phases. */
public sealed interface Step {
  /** Send the request to the pods the context's decision names. */
  record Forward(Routed routed) implements Step {}

  /** Answer the request now. */
  record Answer(ErrorReply reply) implements Step {}

  /**
   * Wait, holding no thread, until {@code resumption} completes; {@code cancel} gives the request's place up when the
   * stream ends first (the resumption then completes exceptionally, and nobody is left to care).
   */
  record Wait(CompletableFuture<Resumption> resumption, Runnable cancel) implements Step {}

  /** How a wait ended. */
  sealed interface Resumption {
    /** Go on; {@code loadedOn} is the pod an adapter was loaded on, when the wait was for a load. */
    record Proceed(String loadedOn) implements Resumption {}

    record Refuse(ErrorReply reply) implements Resumption {}
  }
}
