package io.llmgw.devproxy;

import io.llmgw.api.SettingException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a request does when no EPP can finish with it, per route (path prefix), as Envoy's {@code failure_mode_allow}:
 * fail-closed (the default) answers 500 before the response started and resets the stream after; fail-open goes on
 * without the EPP: a request it had not picked for goes to a default endpoint (round robin) unpicked, one it had picked
 * for keeps its pod, and a response not yet streaming goes to the client unprocessed (no usage or latency recorded).
 */
public final class FailureMode {
  private final List<String> failOpenPrefixes;
  private final List<String> defaultEndpoints;
  private final AtomicInteger next = new AtomicInteger();

  private FailureMode(List<String> failOpenPrefixes, List<String> defaultEndpoints) {
    this.failOpenPrefixes = List.copyOf(failOpenPrefixes);
    this.defaultEndpoints = List.copyOf(defaultEndpoints);
    if (!failOpenPrefixes.isEmpty() && defaultEndpoints.isEmpty()) {
      throw new SettingException("proxy.failOpen", "needs proxy.defaultEndpoints: a request the EPP could not pick "
          + "for has to go somewhere");
    }
    for (String e : defaultEndpoints) {
      if (!e.matches(".+:[0-9]{1,5}")) {
        throw new SettingException("proxy.defaultEndpoints", "takes host:port, not " + e);
      }
    }
  }

  public static FailureMode closed() {
    return new FailureMode(List.of(), List.of());
  }

  /**
   * @param prefixes paths that fail open
   * @param endpoints host:port endpoints for requests that fail open before the EPP picked
   */
  public static FailureMode openFor(List<String> prefixes, List<String> endpoints) {
    return new FailureMode(prefixes, endpoints);
  }

  boolean failsOpen(String path) {
    return failOpenPrefixes.stream().anyMatch(path::startsWith);
  }

  /** The next default endpoint, round robin. */
  String defaultEndpoint() {
    return defaultEndpoints.get(Math.floorMod(next.getAndIncrement(), defaultEndpoints.size()));
  }
}
