package io.llmgw.api;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Names one InferencePool: its namespace and name; {@code namespace/name} as text (metric labels, logs). */
public record PoolKey(String namespace, String name) implements Comparable<PoolKey> {
  /** Reads the text form back ({@code namespace/name}), as status reports carry it. */
  @JsonCreator
  public static PoolKey parse(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not namespace/name");
    }
    return new PoolKey(text.substring(0, slash), text.substring(slash + 1));
  }

  @JsonValue
  @Override
  public String toString() {
    return namespace + "/" + name;
  }

  @Override
  public int compareTo(PoolKey o) {
    return toString().compareTo(o.toString());
  }
}
