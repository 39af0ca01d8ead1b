package io.llmgw.adapters;

import java.util.OptionalInt;

import java.util.concurrent.CompletableFuture;

/**
 * Loads and unloads adapters on one model server. Implementations complete exceptionally with {@link LoadFailure}
 * when the server refuses or breaks, so callers can tell a bad adapter from a bad pod.
 */
public interface AdapterRuntime {
  /** Completes when {@code adapter} (weights at {@code source}) can serve requests on the server at {@code address}. */
  CompletableFuture<Void> load(String address, String adapter, String source);

  CompletableFuture<Void> unload(String address, String adapter);

  /**
   * How many adapters the server at {@code address} says it holds at most, when the runtime can tell (the ModelMesh
   * SPI's capacity over its default model size); empty when it cannot (vLLM does not export max_cpu_loras), in which
   * case the configured capacity applies.
   */
  default CompletableFuture<OptionalInt> capacity(String address) {
    return CompletableFuture.completedFuture(OptionalInt.empty());
  }
}
