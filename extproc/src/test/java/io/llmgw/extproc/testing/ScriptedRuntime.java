package io.llmgw.extproc.testing;

import io.llmgw.adapters.AdapterRuntime;
import io.llmgw.adapters.LoadFailure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** An adapter runtime whose loads the test finishes (or fails) by hand; every call is recorded. */
public final class ScriptedRuntime implements AdapterRuntime {
  public final List<String> loads = new CopyOnWriteArrayList<>();
  public final List<String> unloads = new CopyOnWriteArrayList<>();
  private final Map<String, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<Void> load(String address, String adapter, String source) {
    loads.add(adapter + "@" + address);
    return pending.computeIfAbsent(adapter + "@" + address, k -> new CompletableFuture<>());
  }

  @Override
  public CompletableFuture<Void> unload(String address, String adapter) {
    unloads.add(adapter + "@" + address);
    return CompletableFuture.completedFuture(null);
  }

  /** The pending load of {@code adapter} on {@code address} succeeds. */
  public void finish(String adapter, String address) {
    pending.computeIfAbsent(adapter + "@" + address, k -> new CompletableFuture<>()).complete(null);
  }

  public void fail(String adapter, String address, String why) {
    pending.computeIfAbsent(adapter + "@" + address, k -> new CompletableFuture<>())
        .completeExceptionally(new LoadFailure(adapter, address, why));
  }
}
