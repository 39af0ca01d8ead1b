package io.llmgw.picker.scorers;

import io.llmgw.picker.Ticker;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which endpoint served each session last, bounded twice: at most {@code capacity} sessions (the least recently used
 * goes first) and none older than {@code ttlNanos} since its last request. Memory is therefore capped whatever clients
 * send as session ids. Thread-safe: one short critical section per request.
 */
final class SessionTable {
  private record Last(String address, long usedNanos) {}

  private final int capacity;
  private final long ttlNanos;
  private final Ticker ticker;
  private final LinkedHashMap<String, Last> sessions;

  SessionTable(int capacity, long ttlNanos, Ticker ticker) {
    this.capacity = capacity;
    this.ttlNanos = ttlNanos;
    this.ticker = ticker;
    this.sessions = new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, true);
  }

  /** The endpoint that served the session last, or null when unknown or expired. */
  synchronized String endpointOf(String session) {
    Last last = sessions.get(session);
    if (last == null) {
      return null;
    }
    if (ticker.nanos() - last.usedNanos() > ttlNanos) {
      sessions.remove(session);
      return null;
    }
    return last.address();
  }

  synchronized void served(String session, String address) {
    long now = ticker.nanos();
    sessions.put(session, new Last(address, now));
    Iterator<Map.Entry<String, Last>> eldest = sessions.entrySet().iterator();
    while (eldest.hasNext()) {
      Map.Entry<String, Last> e = eldest.next();
      if (sessions.size() <= capacity && now - e.getValue().usedNanos() <= ttlNanos) {
        break;
      }
      eldest.remove();
    }
  }

  /** Sessions whose endpoint left are forgotten: their next request goes wherever the other scorers say. */
  synchronized void retainOnly(Set<String> addresses) {
    sessions.values().removeIf(last -> !addresses.contains(last.address()));
  }

  synchronized int size() {
    return sessions.size();
  }
}
