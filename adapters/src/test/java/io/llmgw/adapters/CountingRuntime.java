package io.llmgw.adapters;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The real vLLM runtime, recording every call, refusing to load on the pods a test names, and holding loads behind a
 * gate a test may close.
 */
final class CountingRuntime implements AdapterRuntime {
  final AdapterRuntime real;
  final List<String> loads = new CopyOnWriteArrayList<>();
  final List<String> unloads = new CopyOnWriteArrayList<>();
  volatile Set<String> brokenPods = Set.of();
  /** Every load starts only once this completes (a test holds the first load while it queues others). */
  volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

  CountingRuntime(AdapterRuntime real) {
    this.real = real;
  }

  @Override
  public CompletableFuture<Void> load(String address, String adapter, String source) {
    loads.add(adapter + "@" + address);
    if (brokenPods.contains(address)) {
      return CompletableFuture.failedFuture(new LoadFailure(adapter, address, "HTTP 500: GPU fell off the bus"));
    }
    return gate.thenCompose(open -> real.load(address, adapter, source));
  }

  @Override
  public CompletableFuture<Void> unload(String address, String adapter) {
    unloads.add(adapter + "@" + address);
    return real.unload(address, adapter);
  }
}
