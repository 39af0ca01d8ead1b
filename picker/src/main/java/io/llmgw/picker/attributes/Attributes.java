package io.llmgw.picker.attributes;

import java.util.Arrays;

/**
 * One request's attributes: typed values by {@link AttributeKey}, written by producers before admission and read by
 * admission steps, filters and scorers. Not thread-safe: a request is handled by one thread at a time.
 */
public final class Attributes {
  private Object[] values = new Object[AttributeKey.count()];

  /** The value, or null when no producer made it for this request. */
  public <T> T get(AttributeKey<T> key) {
    int i = key.index();
    return i < values.length ? key.type().cast(values[i]) : null;
  }

  /** The value, or {@code fallback} when no producer made it. */
  public <T> T getOrDefault(AttributeKey<T> key, T fallback) {
    T v = get(key);
    return v == null ? fallback : v;
  }

  /** A copy to change without changing this one. */
  public Attributes copy() {
    Attributes out = new Attributes();
    out.values = values.clone();
    return out;
  }

  /** Sets (or, with null, removes) the value. */
  public <T> Attributes put(AttributeKey<T> key, T value) {
    int i = key.index();
    if (i >= values.length) {
      values = Arrays.copyOf(values, Math.max(i + 1, AttributeKey.count()));
    }
    values[i] = key.type().cast(value);
    return this;
  }
}
