package io.llmgw.picker;

import io.llmgw.picker.latency.ObjectiveCheck;
import java.util.Set;

/**
 * What the picker needs to know about one request.
 *
 * @param model the concrete model or adapter the pod must serve (after target selection)
 * @param priority the request's priority; below zero is sheddable
 * @param prefixBlocks chained hashes of the prompt's leading blocks, for prefix-cache affinity (may be empty)
 * @param subset addresses the proxy allows (its subset hint), or null when it sent none
 * @param holders addresses holding the adapter the request needs, or null when any endpoint may serve it
 * @param objective the request's latency limits against each endpoint's predicted latency, or null without limits
 * @param session the session the request belongs to ({@link SessionKey}), or null
 * @param promptTokens the prompt's estimated length in tokens (0 when unknown)
 * @param maxOutputTokens the output the request allows ({@code max_tokens}), or 0 when it does not say
 */
public record PickRequest(String model, int priority, long[] prefixBlocks, Set<String> subset, Set<String> holders,
    ObjectiveCheck objective, String session, long promptTokens, int maxOutputTokens) {
  public static final long[] NO_BLOCKS = new long[0];

  public static PickRequest of(String model) {
    return new PickRequest(model, 0, NO_BLOCKS, null, null, null, null, 0, 0);
  }

  public PickRequest withPrefixBlocks(long[] blocks) {
    return new PickRequest(model, priority, blocks, subset, holders, objective, session, promptTokens, maxOutputTokens);
  }

  public PickRequest withSubset(Set<String> proxySubset) {
    return new PickRequest(model, priority, prefixBlocks, proxySubset, holders, objective, session, promptTokens,
        maxOutputTokens);
  }

  public PickRequest withHolders(Set<String> adapterHolders) {
    return new PickRequest(model, priority, prefixBlocks, subset, adapterHolders, objective, session, promptTokens,
        maxOutputTokens);
  }

  public PickRequest withObjective(ObjectiveCheck check) {
    return new PickRequest(model, priority, prefixBlocks, subset, holders, check, session, promptTokens,
        maxOutputTokens);
  }

  public PickRequest withSession(String id) {
    return new PickRequest(model, priority, prefixBlocks, subset, holders, objective, id, promptTokens,
        maxOutputTokens);
  }

  public PickRequest withSize(long prompt, int maxOutput) {
    return new PickRequest(model, priority, prefixBlocks, subset, holders, objective, session, prompt, maxOutput);
  }
}
