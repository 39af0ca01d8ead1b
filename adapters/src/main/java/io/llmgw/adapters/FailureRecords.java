package io.llmgw.adapters;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Failed loads, remembered for a while (model-mesh's 15 minutes): per adapter and pod, so a retry goes elsewhere, and
 * per adapter once every attempt failed, so requests get an answer at once instead of waiting for a load that will
 * fail again. Records expire by themselves; nobody has to clear them.
 */
public final class FailureRecords {
  record Failure(Instant at, String reason) {}

  private record OnPod(String adapter, String address) {}

  private final Clock clock;
  private final Duration expiry;
  private final Map<OnPod, Failure> byAdapterAndPod = new ConcurrentHashMap<>();
  private final Map<String, Failure> byAdapter = new ConcurrentHashMap<>();

  public FailureRecords(Clock clock, Duration expiry) {
    this.clock = clock;
    this.expiry = expiry;
  }

  void podFailed(String adapter, String address, String reason) {
    byAdapterAndPod.put(new OnPod(adapter, address), new Failure(clock.instant(), reason));
  }

  void adapterFailed(String adapter, String reason) {
    byAdapter.put(adapter, new Failure(clock.instant(), reason));
  }

  boolean failedOn(String adapter, String address) {
    return live(byAdapterAndPod, new OnPod(adapter, address)) != null;
  }

  /** The adapter's failure while it lasts, else null. */
  Failure adapterFailure(String adapter) {
    return live(byAdapter, adapter);
  }

  /** The live failures on one pod: adapter → when and why. */
  Map<String, String> on(String address) {
    Map<String, String> out = new TreeMap<>();
    for (OnPod key : List.copyOf(byAdapterAndPod.keySet())) {
      if (key.address().equals(address)) {
        Failure f = live(byAdapterAndPod, key);
        if (f != null) {
          out.put(key.adapter(), f.at() + ": " + f.reason());
        }
      }
    }
    return out;
  }

  /** Drops every expired record (they are also dropped when read); returns how many went. */
  int reap() {
    Instant horizon = clock.instant().minus(expiry);
    int before = byAdapterAndPod.size() + byAdapter.size();
    byAdapterAndPod.values().removeIf(f -> !f.at().isAfter(horizon));
    byAdapter.values().removeIf(f -> !f.at().isAfter(horizon));
    return before - byAdapterAndPod.size() - byAdapter.size();
  }

  int size() {
    return byAdapterAndPod.size() + byAdapter.size();
  }

  void succeeded(String adapter) {
    byAdapter.remove(adapter);
  }

  private <K> Failure live(Map<K, Failure> records, K key) {
    Failure f = records.get(key);
    if (f != null && !clock.instant().isBefore(f.at().plus(expiry))) {
      records.remove(key, f);
      return null;
    }
    return f;
  }
}
