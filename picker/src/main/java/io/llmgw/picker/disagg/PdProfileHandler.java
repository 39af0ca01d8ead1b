package io.llmgw.picker.disagg;

import io.llmgw.picker.EndpointState;
import io.llmgw.picker.Plugin;
import io.llmgw.picker.scorers.TokenLoadScorer;

/**
 * llm-d's {@code pd-profile-handler}, deciding by cost rather than by a length alone. A configuration that lists it
 * defines two scheduling profiles, {@code prefill} and {@code decode}; every request is routed by the decode profile,
 * and its prompt is computed on the prefill profile's pick when that is cheaper, in prefill-token time, than computing
 * it where it is routed:
 *
 * <pre>
 *   here   = token load of the decode pod + uncached prompt there × (1 + stallWeight × sequences running there)
 *   remote = token load of the prefill pod + uncached prompt there + transferCost × prompt + splitOverhead
 * </pre>
 *
 * Prefilling at the decode pod delays the request behind the prompts queued there, and stalls every sequence running
 * there for as long as the prompt takes (vLLM's chunked prefill spreads the stall over steps; it does not shrink it).
 * On the prefill pod the request waits for that pod's queued prompts, then pays the transfer of its KV cache and a
 * second hop's fixed costs (the prefill pod's API server and scheduling step, then the decode pod's). A prompt
 * whose uncached part at the decode pod is under {@code threshold} tokens is never split: llm-d's meaning of the same
 * parameter, kept as a floor below which the transfer's fixed costs dominate. Splitting by length alone is what llm-d
 * reported to inflate time to first token up to 20× when the prefill pool is busy; the token loads above are what make
 * this decision refuse then.
 *
 * @param threshold uncached prompt tokens at the decode pod under which a request is served whole
 * @param transferCost prefill-token time to move one token's KV cache, relative to computing it (the calibrated
 *     profiles' ratio of KV transfer to prefill per token is 0.02–0.08; 0.1 by default, a little pessimistic)
 * @param costAware false: llm-d's rule, every prompt at or over the threshold is split whatever the loads (kept to
 *     compare against, and for an operator who wants it)
 * @param stallWeight what one token-time of stall to a running sequence counts, against one of this request's own
 *     wait (1: the same)
 * @param splitOverhead the second hop's fixed costs, in prefill tokens
 * @param minPromptTokens a prompt shorter than this is served whole, whatever is cached (llm-d's decider's
 *     {@code promptTokens}; 0: no such floor)
 */
public record PdProfileHandler(int threshold, double transferCost, boolean costAware, double stallWeight,
    int splitOverhead, int minPromptTokens) implements Plugin {
  public static final String TYPE = "pd-profile-handler";
  public static final int DEFAULT_THRESHOLD = 256;
  public static final double DEFAULT_TRANSFER_COST = 0.1;
  /** Half: measured on the calibrated profile, chat turns are then split only where it pays (bench/README.md). */
  public static final double DEFAULT_STALL_WEIGHT = 0.5;
  /** About 16 ms of the calibrated 8B profile's prefill: a second API server's time and one more scheduling step. */
  public static final int DEFAULT_SPLIT_OVERHEAD = 512;
  /** The two profiles a configuration with this handler defines, by llm-d's names. */
  public static final String PREFILL_PROFILE = "prefill";
  public static final String DECODE_PROFILE = "decode";

  @Override
  public String type() {
    return TYPE;
  }

  /** The prefill time, in tokens, of the prompt's uncached part at the decode pod, stalls of its batch included. */
  public double costHere(EndpointState decode, double uncachedThere, long prompt) {
    return TokenLoadScorer.tokenLoad(decode, prompt) + uncachedThere * (1 + stallWeight * decode.metrics().running());
  }

  /** The same on the prefill pod: its queued prompts, the uncached part there, and the transfer of the whole prompt. */
  public double costRemote(EndpointState prefill, double uncachedThere, long prompt) {
    return TokenLoadScorer.tokenLoad(prefill, prompt) + uncachedThere + transferCost * prompt + splitOverhead;
  }
}
