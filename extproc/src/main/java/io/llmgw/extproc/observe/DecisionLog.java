package io.llmgw.extproc.observe;

import io.llmgw.picker.Explanation;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Why requests went where they went: the last {@code capacity} decisions explained, in a ring. One request in
 * {@code sampleEvery} is explained (none when it is 0), and every request that asks ({@link #ASK_HEADER}), so that an operator can follow
 * one request by its id; the others cost one counter increment. Read at {@code GET /admin/decisions} and on the status
 * page, behind the metrics port's read token.
 */
public final class DecisionLog {
  /** A request header asking for this request's decision to be kept (any value). */
  public static final String ASK_HEADER = "x-llmgw-explain";
  /** The response header a request holding the read token in {@link #ASK_HEADER} gets its decision in. */
  public static final String DECISION_HEADER = "x-llmgw-decision";
  static final int MAX_HEADER_CHARS = 2_000;

  /**
   * One decision, whatever its end.
   *
   * @param route the route found, or null when none was (404)
   * @param target the model or adapter the pod must serve, or null before one was chosen
   * @param waitedMs how long the request waited in the EPP (flow control, an adapter load) before this end
   * @param outcome {@code routed}, or the answer's status and code ({@code 429 pool_saturated})
   * @param pod the pod picked, or null when the request was answered
   * @param schedule the scheduling cycle's steps, or null when the request did not reach scheduling
   * @param afterwards what was learnt once the response ended (the engine's cache report against the prediction),
   *     or null
   */
  public record Entry(String requestId, long atMillis, String route, String model, String target, int priority,
      long waitedMs, String outcome, String pod, Explanation.Snapshot schedule, String afterwards) {
    public Entry(String requestId, long atMillis, String route, String model, String target, int priority,
        long waitedMs, String outcome, String pod, Explanation.Snapshot schedule) {
      this(requestId, atMillis, route, model, target, priority, waitedMs, outcome, pod, schedule, null);
    }
  }

  private final Entry[] ring;
  private final int sampleEvery;
  private final Clock clock;
  private final AdminAccess access;
  private final AtomicLong decisions = new AtomicLong();
  private int next;
  private int size;

  /** @param access whose read token lets a request see its own decision in a response header */
  public DecisionLog(int capacity, int sampleEvery, Clock clock, AdminAccess access) {
    this.ring = new Entry[capacity];
    this.sampleEvery = sampleEvery;
    this.clock = clock;
    this.access = access;
  }

  /** @param sampleEvery one decision in this many is explained; 0 explains only the requests that ask */
  public static DecisionLog of(int sampleEvery, Clock clock, AdminAccess access) {
    return new DecisionLog(256, sampleEvery, clock, access);
  }

  /**
   * Whether the request may see its decision in a response header ({@link #DECISION_HEADER}): its explain header holds
   * the metrics port's read (or admin) token. Never when no read token is configured: the header would tell any
   * client the pods' addresses.
   */
  public boolean mayShow(Map<String, String> headers) {
    String token = headers.get(ASK_HEADER);
    return token != null && access.readsProtected()
        && access.read("Bearer " + token) == AdminAccess.Verdict.ALLOWED;
  }

  /** A decision in one line for a response header, at most {@link #MAX_HEADER_CHARS} printable ASCII characters. */
  public static String oneLine(Entry e) {
    StringBuilder out = new StringBuilder(e.outcome());
    if (e.pod() != null) {
      out.append(" to ").append(e.pod());
    }
    Explanation.Snapshot s = e.schedule();
    if (s != null) {
      for (Explanation.Filtered f : s.filters()) {
        out.append("; ").append(f.text());
      }
      for (Explanation.Scored sc : s.scorers()) {
        out.append("; ").append(sc.scorer()).append(" x").append(sc.weight()).append(' ')
            .append(e.pod() == null ? "" : sc.scores().get(e.pod()));
      }
    }
    String line = out.toString().replaceAll("[^\\x20-\\x7e]", "?");
    return line.length() <= MAX_HEADER_CHARS ? line : line.substring(0, MAX_HEADER_CHARS - 3) + "...";
  }

  /** When a decision is kept, on the clock that stamps everything else the EPP reports. */
  public long nowMillis() {
    return clock.millis();
  }

  /** Whether this request's decision is to be explained: it asks, or it is the sampled one. */
  public boolean wants(Map<String, String> headers) {
    boolean sampled = sampleEvery > 0 && decisions.getAndIncrement() % sampleEvery == 0; // counted whether it asks
    return sampled || headers.containsKey(ASK_HEADER);
  }

  public synchronized void record(Entry e) {
    ring[next] = e;
    next = (next + 1) % ring.length;
    size = Math.min(size + 1, ring.length);
  }

  /**
   * Adds what the response taught to the request's kept decision, when it is still kept (the ring holds the last
   * {@code capacity}); called only for explained requests, so the scan costs nothing on the others.
   */
  public synchronized void annotate(String requestId, String note) {
    for (int k = 1; k <= size; k++) {
      int at = Math.floorMod(next - k, ring.length);
      Entry e = ring[at];
      if (e.requestId().equals(requestId)) {
        ring[at] = new Entry(e.requestId(), e.atMillis(), e.route(), e.model(), e.target(), e.priority(),
            e.waitedMs(), e.outcome(), e.pod(), e.schedule(), e.afterwards() == null ? note
                : e.afterwards() + "; " + note);
        return;
      }
    }
  }

  /** Newest first, at most {@code max}; those whose request id contains {@code id} when it is not null. */
  public synchronized List<Entry> recent(int max, String id) {
    List<Entry> out = new ArrayList<>();
    for (int k = 1; k <= size && out.size() < max; k++) {
      Entry e = ring[Math.floorMod(next - k, ring.length)];
      if (id == null || e.requestId().contains(id)) {
        out.add(e);
      }
    }
    return out;
  }
}
