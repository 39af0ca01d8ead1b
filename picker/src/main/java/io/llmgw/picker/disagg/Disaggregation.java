package io.llmgw.picker.disagg;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.PickOutcome;
import io.llmgw.picker.PickRequest;
import io.llmgw.picker.SchedulingProfile;
import java.util.List;

/**
 * The second scheduling cycle of a disaggregated pool: after the decode profile picked where a request goes, whether
 * its prompt is computed elsewhere, and where ({@link PdProfileHandler} decides). Immutable; {@link #NONE} for a
 * configuration without the handler, which never splits.
 */
public final class Disaggregation {
  public static final Disaggregation NONE = new Disaggregation(null, null);

  private final PdProfileHandler handler;
  private final SchedulingProfile prefill;

  public Disaggregation(PdProfileHandler handler, SchedulingProfile prefill) {
    this.handler = handler;
    this.prefill = prefill;
  }

  public boolean enabled() {
    return handler != null;
  }

  /** The prefill profile, or null without the handler. */
  public SchedulingProfile prefillProfile() {
    return prefill;
  }

  /**
   * Where this request's prompt is computed; null when the configuration does not disaggregate. The prefill profile's scorers learn of its pick only when the request is
   * split there, so a prefix index does not believe a prompt cached on a pod that never saw it.
   *
   * @param pool the endpoints the request may use (the decode profile's candidates)
   * @param decode the decode profile's pick
   * @param cachedHere the share of the prompt cached at the decode pod as the pick found it (before the pick recorded
   *     the prompt there)
   */
  public PrefillChoice choose(PickRequest request, List<EndpointState> pool, EndpointState decode, double cachedHere,
      boolean timedRequest) {
    if (handler == null) {
      return null;
    }
    long prompt = Math.max(0, request.promptTokens());
    double uncachedHere = prompt * (1 - cachedHere);
    if (uncachedHere < handler.threshold() || prompt == 0 || prompt < handler.minPromptTokens()) {
      return PrefillChoice.whole(PrefillChoice.Outcome.SHORT);
    }
    PickOutcome outcome = prefill.rank(request, pool, null, timedRequest);
    if (!(outcome instanceof PickOutcome.Picked picked)) {
      return PrefillChoice.whole(PrefillChoice.Outcome.NO_PREFILL_POD);
    }
    EndpointState there = picked.decision().primary();
    double uncachedThere = prompt * (1 - picked.loadAtPick().cachedShare());
    if (handler.costAware()
        && handler.costRemote(there, uncachedThere, prompt) >= handler.costHere(decode, uncachedHere, prompt)) {
      return PrefillChoice.whole(PrefillChoice.Outcome.PREFILL_BUSY);
    }
    prefill.recordPick(request, there);
    return new PrefillChoice(there, PrefillChoice.Outcome.SPLIT, Math.round(uncachedThere));
  }
}
