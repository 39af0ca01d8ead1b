package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.List;
import java.util.Set;

/**
 * A session's home pod, by rendezvous hashing with bounded load: of the candidates (ready, fresh, allowed) whose
 * waiting queue is within {@code balance} times the candidates' mean (plus one) and whose KV-cache use is under
 * {@code maxKvCacheUsage}, the one whose hash with the session id is highest. It scores 1 when idle, falling to 0 as its
 * queue reaches {@code maxQueue}; every other pod scores 0.
 *
 * <p>A conversation's next turn repeats its whole history, so its home pod holds most of the prompt in its prefix cache.
 * The home is computed, not remembered: every EPP replica that sees the same pods sends a session to the same pod, with
 * no table to share or cap, and when a home fills up, every replica moves its sessions to the same next pod (the
 * consistent hashing with bounded loads of Mirrokni, Thorup and Zadimoghaddam). A pod leaving moves only its own
 * sessions.
 */
public final class SessionAffinityScorer implements Scorer {
  public static final String TYPE = "session-affinity-scorer";
  public static final double DEFAULT_BALANCE = 1.25;

  private final double balance;
  private final int maxQueue;
  private final double maxKvCacheUsage;

  public SessionAffinityScorer(double balance, int maxQueue, double maxKvCacheUsage) {
    if (balance < 1) {
      throw new IllegalArgumentException("the load balance factor must be at least 1");
    }
    this.balance = balance;
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
    int home = session == null ? -1 : home(session, candidates);
    for (int i = 0; i < candidates.size(); i++) {
      out[i] = i == home ? room(candidates.get(i)) : 0.0;
    }
  }

  /** The index of the session's home among the candidates, or -1 when none has room. */
  int home(String session, List<EndpointState> candidates) {
    int n = candidates.size();
    int[] queued = new int[n]; // each pod's queue read once: it takes the in-flight counter's lock
    long total = 0;
    for (int i = 0; i < n; i++) {
      queued[i] = candidates.get(i).queued();
      total += queued[i];
    }
    double bound = Math.ceil(balance * (total + 1) / Math.max(1, n));
    long key = Rendezvous.key(session);
    int best = -1;
    long bestWeight = 0;
    for (int i = 0; i < n; i++) {
      EndpointState e = candidates.get(i);
      if (queued[i] > bound || e.metrics().kvCacheUsage() >= maxKvCacheUsage) {
        continue;
      }
      long w = Rendezvous.weight(key, e.address());
      if (best < 0 || Long.compareUnsigned(w, bestWeight) > 0) {
        best = i;
        bestWeight = w;
      }
    }
    return best;
  }

  /** 1 on an idle pod, falling to 0 as its queue reaches {@code maxQueue}. */
  private double room(EndpointState e) {
    return Math.max(0.0, 1.0 - (double) e.queued() / maxQueue);
  }
}
