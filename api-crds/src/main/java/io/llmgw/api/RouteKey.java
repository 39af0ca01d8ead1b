package io.llmgw.api;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Names one LLMRoute: its namespace and name; {@code namespace/name} as text (the route header, metric labels). */
public record RouteKey(String namespace, String name) implements Comparable<RouteKey> {
  /** A pool the route refers to by name: pools are in the route's namespace. */
  public PoolKey pool(String poolName) {
    return new PoolKey(namespace, poolName);
  }

  /** An objective the route's requests name: objectives are in the route's namespace. */
  public ObjectiveKey objective(String objectiveName) {
    return new ObjectiveKey(namespace, objectiveName);
  }

  /** Reads the text form back ({@code namespace/name}), as status reports carry it. */
  @JsonCreator
  public static RouteKey parse(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not namespace/name");
    }
    return new RouteKey(text.substring(0, slash), text.substring(slash + 1));
  }

  @JsonValue
  @Override
  public String toString() {
    return namespace + "/" + name;
  }

  @Override
  public int compareTo(RouteKey o) {
    return toString().compareTo(o.toString());
  }
}
