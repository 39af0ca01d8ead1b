package io.llmgw.adapters;

import java.time.Instant;
import java.util.List;

/**
 * One adapter as operators see it: NOT_LOADED, LOADING, LOADED or LOADING_FAILED, the pods holding it, and the last
 * failure while it counts.
 */
public record AdapterStatus(String adapter, State state, List<String> pods, Instant failedAt, String failure) {
  public enum State { NOT_LOADED, LOADING, LOADED, LOADING_FAILED }
}
