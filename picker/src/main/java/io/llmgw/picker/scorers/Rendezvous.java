package io.llmgw.picker.scorers;

import io.llmgw.picker.Mix64;
import net.openhft.hashing.LongHashFunction;

/**
 * Highest-random-weight hashing: a key's weight on each pod is a hash of both, the same in every process (no seed, no
 * JVM-dependent hash), so replicas that never talk agree on a key's order of pods. Allocation-free: it runs for every
 * candidate of every request naming a session.
 */
final class Rendezvous {
  private Rendezvous() {}

  static long key(String id) {
    return LongHashFunction.xx().hashChars(id);
  }

  /** The key's weight on the pod at {@code address}; compare unsigned. */
  static long weight(long key, String address) {
    return Mix64.mix(key ^ LongHashFunction.xx().hashChars(address));
  }
}
