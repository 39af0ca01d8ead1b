package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.List;
import java.util.Set;

/**
 * For the endpoint that served the request's session last, while it is a candidate (ready, fresh, allowed): 1 when idle,
 * falling to 0 as its waiting queue reaches {@code maxQueue}, and 0 once its KV-cache use reaches {@code
 * maxKvCacheUsage}; 0 for every other endpoint. A conversation's next turn repeats its whole history, so the pod that
 * served the last turn holds most of the prompt in its prefix cache; the prefix-cache scorer sees the same only for the
 * prompt's first blocks and only while its index remembers them. A queue costs waiting that a cache hit may not repay,
 * hence the falling score.
 */
public final class SessionAffinityScorer implements Scorer {
  public static final String TYPE = "session-affinity-scorer";
  public static final int DEFAULT_MAX_SESSIONS = 100_000;
  public static final long DEFAULT_TTL_SECONDS = 600;

  private final SessionTable table;
  private final int maxQueue;
  private final double maxKvCacheUsage;

  public SessionAffinityScorer(int maxSessions, long ttlSeconds, int maxQueue, double maxKvCacheUsage,
      Ticker ticker) {
    this.table = new SessionTable(maxSessions, ttlSeconds * 1_000_000_000L, ticker);
    this.maxQueue = maxQueue;
    this.maxKvCacheUsage = maxKvCacheUsage;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Set<AttributeKey<?>> consumes() {
    return Set.of(RequestAttributes.SESSION_ID);
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    String session = request.attribute(RequestAttributes.SESSION_ID);
    String last = session == null ? null : table.endpointOf(session);
    for (int i = 0; i < candidates.size(); i++) {
      EndpointState e = candidates.get(i);
      out[i] = last != null && e.address().equals(last) ? room(e) : 0.0;
    }
  }

  /** 1 on an idle pod, falling to 0 as its queue reaches {@code maxQueue}; 0 once its KV cache is that full. */
  private double room(EndpointState e) {
    if (e.metrics().kvCacheUsage() >= maxKvCacheUsage) {
      return 0.0;
    }
    return Math.max(0.0, 1.0 - (double) e.queued() / maxQueue);
  }

  @Override
  public void onPicked(PickRequest request, EndpointState primary) {
    String session = request.attribute(RequestAttributes.SESSION_ID);
    if (session != null) {
      table.served(session, primary.address());
    }
  }

  @Override
  public void retainOnly(Set<String> addresses) {
    table.retainOnly(addresses);
  }

  int sessions() {
    return table.size();
  }
}
