package io.llmgw.adapters;

import java.time.Duration;

/**
 * How adapters are paged in and out (DESIGN §4, model-mesh's defaults).
 *
 * @param loadWaitTimeout how long a request waits for its adapter to be loaded before it is answered 503
 * @param attempts different pods a failed load is tried on before the adapter is marked failed
 * @param failureExpiry how long a failure record keeps a pod (or, after every attempt failed, the adapter) aside
 * @param capacityPerPod adapters a pod holds before the least recently used idle one is unloaded for a new one
 * @param loadingPerPod loads one pod runs at once; more wait for a pod with room
 * @param copyScaling whether recently used and busy adapters get more copies (off: one copy each, as static placement)
 */
public record AdapterSettings(Duration loadWaitTimeout, int attempts, Duration failureExpiry, int capacityPerPod,
    int loadingPerPod, boolean copyScaling) {
  public AdapterSettings {
    if (attempts < 1 || capacityPerPod < 1 || loadingPerPod < 1) {
      throw new IllegalArgumentException("adapter attempts, capacity and loading concurrency must be at least 1");
    }
    if (loadWaitTimeout.isNegative() || loadWaitTimeout.isZero()) {
      throw new IllegalArgumentException("--load-wait-timeout must be positive");
    }
  }

  public static AdapterSettings defaults() {
    return new AdapterSettings(Duration.ofSeconds(30), 3, Duration.ofMinutes(15), 8, 2, true);
  }

  public AdapterSettings withLoadWaitTimeout(Duration d) {
    return new AdapterSettings(d, attempts, failureExpiry, capacityPerPod, loadingPerPod, copyScaling);
  }

  public AdapterSettings withCapacityPerPod(int n) {
    return new AdapterSettings(loadWaitTimeout, attempts, failureExpiry, n, loadingPerPod, copyScaling);
  }

  public AdapterSettings withCopyScaling(boolean on) {
    return new AdapterSettings(loadWaitTimeout, attempts, failureExpiry, capacityPerPod, loadingPerPod, on);
  }

  public AdapterSettings withFailureExpiry(Duration d) {
    return new AdapterSettings(loadWaitTimeout, attempts, d, capacityPerPod, loadingPerPod, copyScaling);
  }
}
