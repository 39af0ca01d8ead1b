package io.llmgw.sim.engine;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Where each registered adapter lives, as in vLLM: up to {@code maxLoras} in GPU slots (the adapters a batch may
 * use), up to {@code maxCpuLoras} in host memory (a superset of the GPU ones), the rest on disk. Both tiers evict the
 * least recently used adapter that the running batch does not hold.
 */
final class AdapterTiers {
  enum Level { GPU, CPU, DISK }

  private final Map<String, String> registered = new LinkedHashMap<>();
  private final LinkedHashMap<String, Boolean> cpu = new LinkedHashMap<>(16, 0.75f, true);
  private final LinkedHashMap<String, Boolean> gpu = new LinkedHashMap<>(16, 0.75f, true);
  private final int maxLoras;
  private final int maxCpuLoras;

  AdapterTiers(int maxLoras, int maxCpuLoras) {
    this.maxLoras = maxLoras;
    this.maxCpuLoras = maxCpuLoras;
  }

  boolean isRegistered(String name) {
    return registered.containsKey(name);
  }

  Map<String, String> registered() {
    return registered;
  }

  /** Registers an adapter read from disk into host memory (a load API call, or one named at start). */
  void register(String name, String path, Set<String> pinned) {
    registered.put(name, path);
    putCpu(name, pinned);
  }

  void unregister(String name) {
    registered.remove(name);
    cpu.remove(name);
    gpu.remove(name);
  }

  Level level(String name) {
    if (gpu.containsKey(name)) {
      return Level.GPU;
    }
    return cpu.containsKey(name) ? Level.CPU : Level.DISK;
  }

  /**
   * Puts the adapter in a GPU slot for the next batch and returns where it came from. The caller guarantees a slot
   * can be freed: fewer than {@code maxLoras} adapters are {@code pinned} by running sequences.
   */
  Level activate(String name, Set<String> pinned) {
    Level from = level(name);
    if (!registered.containsKey(name)) {
      return Level.DISK; // unloaded while its requests waited: they still run, the adapter does not come back
    }
    if (from == Level.GPU) {
      gpu.get(name); // touch
      cpu.get(name);
      return from;
    }
    putCpu(name, pinned);
    if (gpu.size() >= maxLoras) {
      evictOne(gpu, pinned);
    }
    gpu.put(name, Boolean.TRUE);
    return from;
  }

  Set<String> cpuResident() {
    return cpu.keySet();
  }

  private void putCpu(String name, Set<String> pinned) {
    if (cpu.containsKey(name)) {
      cpu.get(name);
      return;
    }
    if (cpu.size() >= maxCpuLoras) {
      evictCpu(pinned);
    }
    cpu.put(name, Boolean.TRUE);
  }

  private void evictCpu(Set<String> pinned) {
    for (Iterator<String> it = cpu.keySet().iterator(); it.hasNext();) {
      String candidate = it.next();
      if (!pinned.contains(candidate) && !gpu.containsKey(candidate)) {
        it.remove();
        return;
      }
    }
    // every host-memory adapter is on the GPU: drop the coldest idle GPU one from both tiers
    String victim = evictOne(gpu, pinned);
    if (victim != null) {
      cpu.remove(victim);
    }
  }

  private static String evictOne(LinkedHashMap<String, Boolean> tier, Set<String> pinned) {
    for (Iterator<String> it = tier.keySet().iterator(); it.hasNext();) {
      String candidate = it.next();
      if (!pinned.contains(candidate)) {
        it.remove();
        return candidate;
      }
    }
    return null;
  }
}
