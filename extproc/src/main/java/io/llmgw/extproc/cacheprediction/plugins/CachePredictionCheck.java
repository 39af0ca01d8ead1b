package io.llmgw.extproc.cacheprediction.plugins;

import io.llmgw.extproc.body.TokenUsage;
import io.llmgw.extproc.cacheprediction.core.CachePrediction;
import io.llmgw.extproc.cacheprediction.core.CachePredictionEvents;
import io.llmgw.extproc.cacheprediction.core.MissCause;
import io.llmgw.extproc.cacheprediction.core.PodMisses;
import io.llmgw.extproc.observe.DecisionLog;
import io.llmgw.extproc.request.Completion;
import io.llmgw.extproc.request.RequestContext;
import io.llmgw.extproc.request.Routed;
import io.llmgw.extproc.request.hooks.ResponseHook;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a response ends, compares the share of the prompt the profile's prefix index believed cached on the chosen pod
 * (at the pick) with the {@code cached_tokens} the engine reported (vLLM with {@code --enable-prompt-tokens-details}).
 * Counted per pool for the metrics; an explained decision gains the line "predicted N cached; engine reported M".
 * Skipped where there is nothing to compare: a profile without a prefix-tracking scorer predicts nothing, an engine
 * that does not report the cache says nothing, a prompt a prefill pod computed was cached elsewhere, and a fallback
 * pod that served the request is not the pod the prediction was for.
 *
 * <p>vLLM writes {@code prompt_tokens_details} only when something was cached ({@code null} otherwise, as it does
 * without {@code --enable-prompt-tokens-details}): a pod that has reported its cache once is taken to report it
 * always, so its silence afterwards is 0 cached, the case that shows a prediction wrong most plainly.
 */
public final class CachePredictionCheck implements ResponseHook {
  public static final String TYPE = "cache-prediction";

  private final boolean predicts;
  private final CachePredictionEvents events;
  private final DecisionLog decisions;
  private final EngineBlockIndex engineBlocks;
  private final PodMisses misses = new PodMisses();
  /** Pods that have reported their cache; cleared when it outgrows any real fleet (pods come and go). */
  private final Set<String> reporting = ConcurrentHashMap.newKeySet();
  static final int MAX_REPORTING_PODS = 16_384;

  /**
   * @param predicts whether the scheduling profile has a prefix-tracking scorer
   * @param engineBlocks the index of the pods' KV-cache events, to tell lost events as a cause
   */
  public CachePredictionCheck(boolean predicts, CachePredictionEvents events, DecisionLog decisions,
      EngineBlockIndex engineBlocks) {
    this.predicts = predicts;
    this.events = events;
    this.decisions = decisions;
    this.engineBlocks = engineBlocks;
  }

  /** The pool as the other pool figures name it (namespace/name), from the request's choice. */
  private static String pool(RequestContext ctx, String name) {
    for (PoolView p : ctx.choice().pools()) {
      if (p.key().name().equals(name)) {
        return p.key().toString();
      }
    }
    return name;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public void onDone(RequestContext ctx, Completion completion) {
    Routed routed = ctx.routed();
    TokenUsage usage = completion.usage();
    if (!predicts || routed == null || usage == null || !usage.plausible() || routed.prefillAddress() != null
        || !completion.code().startsWith("2")) {
      return;
    }
    String pod = routed.decision().primary().address();
    if (ctx.lease() != null && !ctx.lease().address().equals(pod)) {
      return; // the proxy fell back to another pod: its report is not about the pod predicted for
    }
    long reported;
    if (usage.reportsCache()) {
      reported = usage.cachedTokens();
      if (reporting.size() >= MAX_REPORTING_PODS) {
        reporting.clear();
      }
      reporting.add(pod);
    } else if (usage.cachedTokens() < 0 && reporting.contains(pod)) {
      reported = 0;
    } else {
      return;
    }
    CachePrediction p = CachePrediction.of(pool(ctx, routed.decision().primary().endpoint().pool()),
        routed.loadAtPick().cachedShare(), usage.promptTokens(), reported);
    events.observed(p);
    MissCause cause = misses.observe(pod, p, engineBlocks != null && engineBlocks.relearning(pod));
    if (cause != null) {
      events.missing(p, cause);
    }
    if (ctx.explanation() != null) {
      decisions.annotate(ctx.requestId(), cause == null ? p.explain() : p.explain() + ": " + cause.why());
    }
  }
}
