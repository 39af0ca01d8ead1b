package io.llmgw.picker;

import java.util.Set;

/**
 * What the picker needs to know about one request.
 *
 * @param model the concrete model or adapter the pod must serve (after target selection)
 * @param priority the route's priority; below zero is sheddable
 * @param prefixBlocks chained hashes of the prompt's leading blocks, for prefix-cache affinity (may be empty)
 * @param subset addresses the proxy allows, or null when it sent no subset hint
 */
public record PickRequest(String model, int priority, long[] prefixBlocks, Set<String> subset) {
  public static PickRequest of(String model) {
    return new PickRequest(model, 0, new long[0], null);
  }
}
