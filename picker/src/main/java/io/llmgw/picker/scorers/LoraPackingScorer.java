package io.llmgw.picker.scorers;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.Scorer;
import java.util.List;
import java.util.Set;

/**
 * The seed policy (the gateway's PoC rule) as one scorer. Endpoints where the request's adapter is active
 * ({@link EndpointState#adapterActive}: running there, lately so, or in flight from this gateway) with fewer than
 * {@code pendingThreshold} requests pending for that adapter there are preferred, the one with the MOST pending first:
 * an adapter's traffic packs onto few pods and does not flap between them. A pod that only lists the adapter is not
 * preferred (vLLM lists every registered adapter on every pod). Among equals, the one whose batch runs the fewest
 * adapters. Every other endpoint (and every endpoint for a base-model request, where packing buys nothing) ranks
 * below them by fewest active adapters, then least pending in total, then whether it can serve the adapter without a
 * load ({@link EndpointState#holdsAdapter}).
 *
 * <p>Pending for the adapter ({@link #pendingFor}) is what the proposal's rule reads: requests in that adapter, not in
 * the pod. It is every replica's in-flight count for the adapter there (this one's live, its peers' last snapshots),
 * or, when the pod reports the adapter among {@code waiting_lora_adapters}, its share of the pod's waiting queue if
 * that is more (clients and replicas this one does not hear from). An adapter the pod does not name as waiting has
 * nothing waiting there, so a long queue of other adapters' requests does not take the adapter's affinity away: the
 * pod's total queue counts through saturation, admission and the fallback branch's order, not here.
 *
 * <p>Preferred endpoints score in [0.5, 1], the others in [0, 0.5): with max-score picking, the preferred branch is
 * ranked first and the others follow as fallbacks. Each branch's tie-breaker is normalised over that branch alone.
 */
public final class LoraPackingScorer implements Scorer {
  public static final String TYPE = "lora-packing-scorer";
  public static final int DEFAULT_PENDING_THRESHOLD = 50;
  /** Below one pending's step (1 / threshold) for any threshold under 1,000: a tie-breaker only. */
  private static final double TIE_BREAK = 0.000_9;
  private static final long PENDING_SPAN = 1L << 32;

  private final int pendingThreshold;

  public LoraPackingScorer(int pendingThreshold) {
    if (pendingThreshold < 1) {
      throw new IllegalArgumentException("pendingThreshold must be at least 1");
    }
    this.pendingThreshold = pendingThreshold;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void score(PickRequest request, List<EndpointState> candidates, double[] out) {
    String model = request.model();
    int n = candidates.size();
    // one pass: which branch, the packing term (pending for the model, preferred only) and the tie-break key
    int[] pending = new int[n]; // -1: not preferred
    long[] key = new long[n];
    long minPreferred = Long.MAX_VALUE;
    long maxPreferred = Long.MIN_VALUE;
    long minRest = Long.MAX_VALUE;
    long maxRest = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      EndpointState e = candidates.get(i);
      int p = -1;
      if (!e.metrics().baseModels().contains(model) && e.adapterActive(model)) {
        int forModel = pendingFor(e, model);
        p = forModel < pendingThreshold ? forModel : -1;
      }
      pending[i] = p;
      // last of all, a pod that can serve the adapter without a load call ranks above one that cannot
      long k = (e.metrics().activeAdapterCount() * PENDING_SPAN + e.pending()) * 2 + (e.holdsAdapter(model) ? 0 : 1);
      key[i] = k;
      if (p >= 0) {
        minPreferred = Math.min(minPreferred, k);
        maxPreferred = Math.max(maxPreferred, k);
      } else {
        minRest = Math.min(minRest, k);
        maxRest = Math.max(maxRest, k);
      }
    }
    for (int i = 0; i < n; i++) {
      if (pending[i] >= 0) {
        double packing = (double) pending[i] / pendingThreshold;
        out[i] = 0.5 + 0.5 * (packing + TIE_BREAK * fewest(key[i], minPreferred, maxPreferred)) / (1 + TIE_BREAK);
      } else {
        out[i] = 0.499 * fewest(key[i], minRest, maxRest);
      }
    }
  }

  /**
   * Requests for the adapter at the pod: every replica's in flight there, or the adapter's share of the pod's waiting
   * queue when the pod names it waiting (the queue split evenly among the adapters it names waiting), whichever is
   * more. Nothing is waiting for an adapter the pod does not name.
   */
  static int pendingFor(EndpointState e, String adapter) {
    int inFlight = e.inFlight().forModel(adapter);
    Set<String> waiting = e.metrics().waitingAdapters();
    if (!waiting.contains(adapter)) {
      return inFlight;
    }
    int queue = e.metrics().waitingQueue();
    return Math.max(inFlight, (queue + waiting.size() - 1) / waiting.size());
  }

  /** Min–max normalised, fewer is better. */
  private static double fewest(long key, long min, long max) {
    return max == min ? 1.0 : (double) (max - key) / (max - min);
  }
}
