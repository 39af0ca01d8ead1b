package io.llmgw.picker;

import java.util.Set;
import java.util.TreeSet;

/**
 * An endpoint as the picker sees it for one decision: last reported metrics, whether its scrapes currently succeed,
 * the gateway's own in-flight view (live counters, read during the decision), and the adapter loads and unloads the
 * gateway made there lately.
 */
public record EndpointState(Endpoint endpoint, PodMetrics metrics, boolean scrapeHealthy, InFlight inFlight,
    AdapterChanges changes) {
  public EndpointState(Endpoint endpoint, PodMetrics metrics, boolean scrapeHealthy, InFlight inFlight) {
    this(endpoint, metrics, scrapeHealthy, inFlight, AdapterChanges.NONE);
  }

  public String address() {
    return endpoint.address();
  }

  /**
   * The one definition of "servable" (resident): the pod can serve the adapter without a load call when the gateway
   * loaded it there lately, or when the pod reports it (listed in {@code /v1/models}, or in its batch) and the gateway
   * did not unload it lately. Residency filtering, loading and eviction go by this; affinity goes by
   * {@link #adapterActive}.
   */
  public boolean holdsAdapter(String adapter) {
    Boolean own = changes.lately(address(), adapter);
    return own != null ? own : metrics.reportsAdapter(adapter);
  }

  /**
   * The one definition of "active": requests for the adapter run at the pod, or ran or waited there lately while other
   * adapters do not hold every slot ({@link PodMetrics#warm}), or this gateway has requests for it in flight there or
   * loaded it there lately. A pod that merely lists the adapter is not active for it: vLLM lists every registered
   * adapter, in a GPU slot or not. Reads in place: for the per-request path.
   */
  public boolean adapterActive(String adapter) {
    Boolean own = changes.lately(address(), adapter);
    if (own != null) {
      return own;
    }
    return inFlight.forModel(adapter) > 0 || metrics.warm(adapter);
  }

  /** Every adapter {@link #holdsAdapter} says the pod holds. Builds a set: not for the per-request path. */
  public Set<String> residentAdapters() {
    Set<String> out = new TreeSet<>(metrics.reportedAdapters());
    out.addAll(changes.loadedLately(address()));
    out.removeIf(a -> !holdsAdapter(a));
    return out;
  }

  /**
   * Requests waiting at the pod: what it reported, plus what this gateway sent it since that report. The pod's own
   * count includes what other gateway replicas and direct clients sent, which this gateway's in-flight count cannot.
   */
  public int queued() {
    return metrics.waitingQueue() + inFlight.sentSince(metrics.updatedAt());
  }

  /** Requests at the pod, running or waiting, as {@link #queued} counts them. */
  public int pending() {
    return metrics.running() + queued();
  }

  /** Serves the model without a load: its base model, or an adapter it holds. */
  public boolean serves(String model) {
    return metrics.baseModels().contains(model) || holdsAdapter(model);
  }
}
