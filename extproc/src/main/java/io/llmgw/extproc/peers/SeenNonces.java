package io.llmgw.extproc.peers;

import java.io.IOException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The watch requests served within the last two skews, so that one seen on the wire cannot be sent again: a signed
 * request is good for a minute either side of the clock, and this remembers it for that long. Bounded: with more than
 * {@link #MAX} live requests (far beyond any fleet's reconnects) new ones are refused until old ones age out.
 */
final class SeenNonces {
  static final int MAX = 4096;
  private final Map<String, Long> seen = new LinkedHashMap<>();

  /**
   * The nonce of a request signed with {@code key}, seen for the first time.
   *
   * @throws IOException naming why not: unsigned, stale, replayed, or too many within a minute
   */
  byte[] admit(PeerKey key, byte[] request) throws IOException {
    long now = System.currentTimeMillis();
    byte[] nonce = key.watcherNonce(request, now);
    if (key.signs() && !first(nonce, now)) {
      throw new IOException("a request seen before (replayed), or too many within a minute");
    }
    return nonce;
  }

  /** True the first time {@code nonce} is offered within the window; false for a replay or when full. */
  synchronized boolean first(byte[] nonce, long nowMillis) {
    for (Iterator<Long> it = seen.values().iterator(); it.hasNext();) {
      if (nowMillis - it.next() <= 2 * PeerKey.MAX_SKEW_MILLIS) {
        break; // in the order they came: the rest are younger
      }
      it.remove();
    }
    if (seen.size() >= MAX) {
      return false;
    }
    return seen.putIfAbsent(HexFormat.of().formatHex(nonce), nowMillis) == null;
  }
}
