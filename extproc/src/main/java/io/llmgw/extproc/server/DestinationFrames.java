package io.llmgw.extproc.server;

import com.google.protobuf.Struct;
import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.llmgw.api.EppProtocol;
import io.llmgw.api.RouteKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The routing answer's parts that depend only on where it sends the request: the destination header and its
 * {@code envoy.lb} metadata, and the route header. A pool has few destinations and routes, and protobuf messages are
 * immutable, so each is built once and shared by every answer; the cache forgets everything past a bound (destinations
 * with fallbacks combine) rather than grow with churn.
 */
final class DestinationFrames {
  record Destination(HeaderValueOption header, Struct metadata) {}

  private static final int MAX_ENTRIES = 4096;
  private static final ConcurrentHashMap<String, Destination> DESTINATIONS = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<RouteKey, HeaderValueOption> ROUTES = new ConcurrentHashMap<>();

  private DestinationFrames() {}

  static Destination destination(String value) {
    return cached(DESTINATIONS, value,
        v -> new Destination(Frames.setHeader(EppProtocol.DESTINATION, v), Frames.destinationMetadata(v)));
  }

  static HeaderValueOption route(RouteKey route) {
    return cached(ROUTES, route, k -> Frames.setHeader(EppProtocol.ROUTE, k.toString()));
  }

  private static <K, V> V cached(ConcurrentHashMap<K, V> cache, K key, Function<K, V> build) {
    V v = cache.get(key);
    if (v == null) {
      if (cache.size() >= MAX_ENTRIES) {
        cache.clear();
      }
      v = cache.computeIfAbsent(key, build);
    }
    return v;
  }
}
