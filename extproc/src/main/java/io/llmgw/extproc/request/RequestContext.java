package io.llmgw.extproc.request;

import io.llmgw.extproc.body.ExtractedBody;
import io.llmgw.extproc.body.RequestBody;
import io.llmgw.extproc.observe.tracing.RequestTrace;
import io.llmgw.extproc.state.InFlightTracker;
import io.llmgw.extproc.state.RouteView;
import io.llmgw.extproc.tenancy.core.Reservation;
import io.llmgw.picker.Explanation;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.attributes.Attributes;
import io.llmgw.picker.attributes.PromptBlocks;
import io.llmgw.picker.latency.ObjectiveLimits;
import java.util.Map;
import java.util.Set;

/**
 * One request from its first frame to its last: what arrived, what each phase decided, and its {@link RequestState}.
 * The stream and the {@link Director} change it (one at a time: the stream serialises its frames and resumptions);
 * plugins read it.
 */
public final class RequestContext implements PromptBlocks.Source {
  private RequestState state = RequestState.RECEIVING;
  private final ResponseTiming timing;
  private String requestId = "";
  private Map<String, String> headers = Map.of();
  private Set<String> proxySubset;
  private ExtractedBody found;
  private RequestBody body;
  private RequestHints hints;
  private long promptTokens;
  private RouteView route;
  private Choice choice;
  private int priority;
  private ObjectiveLimits limits = ObjectiveLimits.NONE;
  private final Attributes attributes = new Attributes();
  private Set<String> holders;
  private Routed routed;
  private InFlightTracker.Lease lease;
  private InFlightTracker.Lease prefillLease;
  private Explanation explanation;
  private boolean timed;
  private String decisionHeader;
  private Runnable cancelWait;
  private RequestTrace trace;
  private String tenant;
  private Reservation reservation;
  /** The admission step to run next: one that made the request wait is not run again. */
  private int nextAdmissionStep;

  public RequestContext(Ticker ticker) {
    this.timing = new ResponseTiming(ticker);
  }

  public RequestState state() {
    return state;
  }

  /** @throws IllegalStateException on a move the lifecycle does not allow: a bug, answered 500 by the stream */
  public void moveTo(RequestState next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException("request " + requestId + " cannot go from " + state + " to " + next);
    }
    if (trace != null) {
      Traces.moved(trace, state, next);
    }
    state = next;
  }

  /** This request's spans, or null when it is not traced. */
  public RequestTrace trace() {
    return trace;
  }

  /** Traces this request from now on (its headers arrived). */
  public void trace(RequestTrace sampled) {
    this.trace = sampled;
  }

  /** The request headers arrived. */
  public void received(String id, Map<String, String> requestHeaders, Set<String> subsetHint) {
    this.requestId = id;
    this.headers = requestHeaders;
    this.proxySubset = subsetHint;
  }

  /** The body is complete and names a model. */
  public void bodyComplete(ExtractedBody scanned, RequestBody whole, int bytesPerToken) {
    this.found = scanned;
    this.body = whole;
    this.promptTokens = whole.size() / bytesPerToken;
  }

  /** Whether the request's headers came (a stream's first frame must be them). */
  public boolean headersArrived() {
    return !requestId.isEmpty();
  }

  public String requestId() {
    return requestId;
  }

  public Map<String, String> headers() {
    return headers;
  }

  /** The proxy's subset hint, or null when it sent none. */
  public Set<String> proxySubset() {
    return proxySubset;
  }

  public ExtractedBody found() {
    return found;
  }

  public RequestBody body() {
    return body;
  }

  /** The prompt's leading bytes, for prefix hashing ({@code messages} or {@code prompt}, as the body holds them). */
  @Override
  public byte[] promptPrefix(int maxBytes) {
    return body.promptPrefix(found, maxBytes);
  }

  /** The model the client asked for. */
  public String requestedModel() {
    return found == null ? null : found.model();
  }

  /** The prompt's size in tokens, estimated from the body's size (for the latency model). */
  public long promptTokens() {
    return promptTokens;
  }

  public RequestHints hints() {
    return hints;
  }

  void hints(RequestHints parsed) {
    this.hints = parsed;
  }

  public RouteView route() {
    return route;
  }

  /** Collects the scheduling cycle's steps when this decision is to be explained; null otherwise. */
  public Explanation explanation() {
    return explanation;
  }

  void explain(Explanation collector) {
    this.explanation = collector;
  }

  /** Whether this request's plugins are timed (one request in the timings' sample). */
  boolean timed() {
    return timed;
  }

  void timed(boolean timed) {
    this.timed = timed;
  }

  /** The decision in one line, for the response header of a request that showed the read token; null otherwise. */
  public String decisionHeader() {
    return decisionHeader;
  }

  void decisionHeader(String line) {
    this.decisionHeader = line;
  }

  public Choice choice() {
    return choice;
  }

  public int priority() {
    return priority;
  }

  /** Who is asking, as the stream authenticated it; null when the gateway has no tenants. */
  public String tenant() {
    return tenant;
  }

  public void tenant(String who) {
    this.tenant = who;
  }

  /** The tokens this request holds of its tenant's budget, until its usage settles them; null when none. */
  public Reservation reservation() {
    return reservation;
  }

  public void holdReservation(Reservation r) {
    this.reservation = r;
  }

  /** The tenant's band, or a demotion: admission may move a request to another priority before flow control. */
  public void reprioritise(int newPriority) {
    this.priority = newPriority;
  }

  int nextAdmissionStep() {
    return nextAdmissionStep;
  }

  void nextAdmissionStep(int step) {
    this.nextAdmissionStep = step;
  }

  void resolved(RouteView matched, int requestPriority, ObjectiveLimits requestLimits) {
    this.route = matched;
    this.priority = requestPriority;
    this.limits = requestLimits;
  }

  void choice(Choice chosen) {
    this.choice = chosen;
  }

  /** The latency limits the request was admitted with (before any waiting). */
  public ObjectiveLimits limits() {
    return limits;
  }

  /** What the producers made for this request (prompt blocks, session, the objective check, …). */
  public Attributes attributes() {
    return attributes;
  }

  /** Milliseconds since the request arrived (time spent waiting counts against its objectives). */
  public long waitedMillis() {
    return timing.waitedMillis();
  }

  /** Where the target is resident, as the load phase found it; null when any endpoint may serve it. */
  public Set<String> holders() {
    return holders;
  }

  void holders(Set<String> where) {
    this.holders = where;
  }

  public Routed routed() {
    return routed;
  }

  void routed(Routed decision) {
    this.routed = decision;
    timing.dispatched();
  }

  /** The request's count in flight on its pod: taken by a before-request hook, released when the exchange ends. */
  public InFlightTracker.Lease lease() {
    return lease;
  }

  public void holdLease(InFlightTracker.Lease taken) {
    this.lease = taken;
  }

  /** A split request's count on its prefill pod, with the prompt it computes there; null when served whole. */
  public InFlightTracker.Lease prefillLease() {
    return prefillLease;
  }

  public void holdPrefillLease(InFlightTracker.Lease taken) {
    this.prefillLease = taken;
  }

  public ResponseTiming timing() {
    return timing;
  }

  void waitingOn(Runnable cancel) {
    this.cancelWait = cancel;
  }

  /** The stream ended while the request waited: give its place up (a queued request leaves the queue at once). */
  public void cancelWait() {
    Runnable c = cancelWait;
    cancelWait = null;
    if (c != null) {
      c.run();
    }
  }

  /** Whether the chosen target is not the model the client asked for: its body and its answer's model are rewritten. */
  public boolean rewritten() {
    return !choice.target().equals(requestedModel());
  }

  /** The model the metrics name: the route's (configuration, never client input), or none. */
  public String routeModel() {
    return route == null ? "" : route.route().modelName();
  }
}
