package io.llmgw.adapters;

import io.llmgw.api.SettingException;
import java.time.Duration;

/**
 * How adapters are paged in and out (model-mesh's defaults).
 *
 * @param loadWaitTimeout how long a request waits for its adapter to be loaded before it is answered 503
 * @param attempts different pods a failed load is tried on before the adapter is marked failed
 * @param failureExpiry how long a failure record keeps a pod (or, after every attempt failed, the adapter) aside
 * @param capacityPerPod adapters a pod holds before the least recently used idle one is unloaded for a new one
 * @param loadingPerPod loads one pod runs at once; more wait for a pod with room
 * @param copyScaling whether recently used and busy adapters get more copies (off: one copy each, as static placement)
 * @param mmeshPort 0 to load through vLLM's runtime LoRA API on the pod's serving port; otherwise the pods' ModelMesh
 *     runtime SPI port
 * @param ownActionTtl how long this EPP's own load or unload stands in for the pod's report (its model list is
 *     scraped every second)
 * @param reaperPeriod how often expired failure records and state of departed pods are dropped
 */
public record AdapterSettings(Duration loadWaitTimeout, int attempts, Duration failureExpiry, int capacityPerPod,
    int loadingPerPod, boolean copyScaling, int mmeshPort, Duration ownActionTtl, Duration reaperPeriod) {
  public AdapterSettings {
    if (attempts < 1 || capacityPerPod < 1 || loadingPerPod < 1) {
      throw new IllegalArgumentException("adapter attempts, capacity and loading concurrency must be at least 1");
    }
    if (mmeshPort < 0 || mmeshPort > 65535) {
      throw new SettingException("adapters.mmeshPort", "must be within 0..65535");
    }
    if (loadWaitTimeout.isNegative() || loadWaitTimeout.isZero()) {
      throw new SettingException("adapters.loadWaitTimeout", "must be positive");
    }
    for (Duration d : new Duration[] {failureExpiry, ownActionTtl, reaperPeriod}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("the adapter expiry periods must be positive");
      }
    }
  }

  public static AdapterSettings defaults() {
    return new AdapterSettings(Duration.ofSeconds(30), 3, Duration.ofMinutes(15), 8, 2, true, 0,
        Duration.ofSeconds(10), Duration.ofMinutes(7));
  }

  public AdapterSettings withLoadWaitTimeout(Duration d) {
    return new AdapterSettings(d, attempts, failureExpiry, capacityPerPod, loadingPerPod, copyScaling, mmeshPort,
        ownActionTtl, reaperPeriod);
  }

  public AdapterSettings withCapacityPerPod(int n) {
    return new AdapterSettings(loadWaitTimeout, attempts, failureExpiry, n, loadingPerPod, copyScaling, mmeshPort,
        ownActionTtl, reaperPeriod);
  }

  public AdapterSettings withLoadingPerPod(int n) {
    return new AdapterSettings(loadWaitTimeout, attempts, failureExpiry, capacityPerPod, n, copyScaling, mmeshPort,
        ownActionTtl, reaperPeriod);
  }

  public AdapterSettings withCopyScaling(boolean on) {
    return new AdapterSettings(loadWaitTimeout, attempts, failureExpiry, capacityPerPod, loadingPerPod, on, mmeshPort,
        ownActionTtl, reaperPeriod);
  }

  /** Load through the ModelMesh runtime SPI on this port of each pod (0: vLLM's HTTP API). */
  public AdapterSettings withMmeshPort(int port) {
    return new AdapterSettings(loadWaitTimeout, attempts, failureExpiry, capacityPerPod, loadingPerPod, copyScaling,
        port, ownActionTtl, reaperPeriod);
  }

  /** The loader these settings name. */
  public AdapterRuntime runtime() {
    return mmeshPort == 0 ? new VllmRuntime(loadWaitTimeout) : new MmeshRuntime(mmeshPort, loadWaitTimeout);
  }
}
