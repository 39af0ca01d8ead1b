package io.llmgw.picker;

import io.llmgw.picker.attributes.AttributeKey;
import io.llmgw.picker.attributes.Attributes;
import io.llmgw.picker.attributes.PromptBlocks;
import io.llmgw.picker.attributes.RequestAttributes;
import java.util.Set;

/**
 * What the picker needs to know about one request: what the lifecycle's phases decided (the target, the priority,
 * where the proxy allows it and where its adapter is resident) and the request's {@link Attributes}, which producers
 * made before admission. A new per-request input is an attribute, never a new component here.
 *
 * @param model the concrete model or adapter the pod must serve (after target selection)
 * @param priority the request's priority; below zero is sheddable
 * @param subset addresses the proxy allows (its subset hint), or null when it sent none
 * @param holders addresses holding the adapter the request needs, or null when any endpoint may serve it
 * @param promptTokens the prompt's estimated length in tokens (0 when unknown)
 * @param attributes what producers made for the request (prompt blocks, session, latency check, …)
 */
public record PickRequest(String model, int priority, Set<String> subset, Set<String> holders, long promptTokens,
    Attributes attributes) {
  public static PickRequest of(String model) {
    return new PickRequest(model, 0, null, null, 0, new Attributes());
  }

  /** The attribute, or null when no producer made it. */
  public <T> T attribute(AttributeKey<T> key) {
    return attributes.get(key);
  }

  /** The prompt's prefix blocks for the request's target; empty when nothing hashed the prompt. */
  public long[] prefixBlocks() {
    PromptBlocks b = attributes.get(RequestAttributes.PROMPT_BLOCKS);
    return b == null ? PromptBlocks.NONE : b.of(model);
  }

  /**
   * This request with one attribute set, as a producer would (tests and benchmarks, which run no producers); a copy,
   * as the other withers make, so a request shared by several picks is never changed under them.
   */
  public <T> PickRequest with(AttributeKey<T> key, T value) {
    return new PickRequest(model, priority, subset, holders, promptTokens, attributes.copy().put(key, value));
  }

  public PickRequest withPrefixBlocks(long[] blocks) {
    return with(RequestAttributes.PROMPT_BLOCKS, PromptBlocks.fixed(blocks));
  }

  public PickRequest withPromptTokens(long tokens) {
    return new PickRequest(model, priority, subset, holders, tokens, attributes);
  }

  public PickRequest withSubset(Set<String> proxySubset) {
    return new PickRequest(model, priority, proxySubset, holders, promptTokens, attributes);
  }

  public PickRequest withHolders(Set<String> adapterHolders) {
    return new PickRequest(model, priority, subset, adapterHolders, promptTokens, attributes);
  }
}
