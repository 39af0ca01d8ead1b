package io.llmgw.picker;

/** MurmurHash3's 64-bit finaliser: a bijection in which every input bit moves every output bit, allocation-free. */
public final class Mix64 {
  private Mix64() {}

  public static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }
}
