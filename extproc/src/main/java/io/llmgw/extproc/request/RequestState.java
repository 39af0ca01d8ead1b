package io.llmgw.extproc.request;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where one request is in its lifecycle. The decision phases run in order, each at most once; a wait (flow control,
 * an adapter load) resumes where it waited: after the admission step that queued it (the steps after it still run),
 * after the load. Two terminal states: the EPP answered the request itself, or its
 * exchange is over (the response ended, or the proxy ended the stream).
 *
 * <pre>
 * RECEIVING → RESOLVE → PREPARE → ADMIT ─┬──────────→ LOAD ─┬─────────→ SCHEDULE → ROUTED → RESPONDING → DONE
 *                                  ▲     └→ QUEUED ─┐      └→ LOADING ─┘
 *                                  └────────────────┘ (the admission steps after the one it waited for)
 * any state → ANSWERED (an immediate response) or DONE (the stream ended)
 * </pre>
 */
public enum RequestState {
  /** Headers and body arriving. */
  RECEIVING,
  /** Next: the route, the target or variant, a rollout's redirect. */
  RESOLVE,
  /** Next: the producers make the request's attributes (prompt blocks, session, the objective check, …). */
  PREPARE,
  /** Waiting for a producer's value from elsewhere (a tokenizer server). */
  PREPARING,
  /** Next: the tenant's budget, shedding, objective shedding, flow control. */
  ADMIT,
  /** Waiting in admission: for its tenant's budget, or in flow control for its pool to have room. */
  QUEUED,
  /** Next: making sure the target is resident where the request may go. */
  LOAD,
  /** Waiting for its adapter to be loaded. */
  LOADING,
  /** Next: filters, scorers, picker, then the before-request hooks. */
  SCHEDULE,
  /** Sent to a pod; the response has not started. */
  ROUTED,
  /** The response is streaming back. */
  RESPONDING,
  /** The EPP answered the request itself (an error, or the model list). */
  ANSWERED,
  /** The exchange is over. */
  DONE;

  private static final Set<RequestState> TERMINAL = EnumSet.of(ANSWERED, DONE);

  public boolean terminal() {
    return TERMINAL.contains(this);
  }

  /** Waiting for something outside the request (the stream holds no thread meanwhile). */
  public boolean waiting() {
    return this == QUEUED || this == LOADING || this == PREPARING;
  }

  /** A pod was chosen and the request counts in flight there. */
  public boolean routed() {
    return this == ROUTED || this == RESPONDING;
  }

  public boolean canMoveTo(RequestState next) {
    if (terminal()) {
      return false;
    }
    if (next.terminal()) {
      return true;
    }
    return switch (this) {
      case RECEIVING -> next == RESOLVE;
      case RESOLVE -> next == PREPARE;
      case PREPARE -> next == ADMIT || next == PREPARING;
      case PREPARING -> next == ADMIT;
      case ADMIT -> next == LOAD || next == QUEUED;
      case QUEUED -> next == ADMIT;
      case LOAD -> next == SCHEDULE || next == LOADING;
      case LOADING -> next == SCHEDULE;
      case SCHEDULE -> next == ROUTED;
      case ROUTED -> next == RESPONDING;
      default -> false;
    };
  }
}
