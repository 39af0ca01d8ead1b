package io.llmgw.picker.attributes;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The name and type of one per-request input that a producer makes and plugins read ({@link Attributes}). Keys are
 * constants: each gets a small index when created, so a request's attributes are an array, not a map.
 *
 * @param <T> the value's type
 */
public final class AttributeKey<T> {
  private static final AtomicInteger NEXT_INDEX = new AtomicInteger();

  private final String name;
  private final Class<T> type;
  private final String defaultProducer;
  private final int index;

  private AttributeKey(String name, Class<T> type, String defaultProducer) {
    this.name = Objects.requireNonNull(name);
    this.type = Objects.requireNonNull(type);
    this.defaultProducer = defaultProducer;
    this.index = NEXT_INDEX.getAndIncrement();
  }

  /**
   * @param defaultProducer the plugin type that makes this attribute when a configuration lists no producer of it (a
   *     configuration file from the reference EPP lists none), or null when a configuration must name one
   */
  public static <T> AttributeKey<T> of(String name, Class<T> type, String defaultProducer) {
    return new AttributeKey<>(name, type, defaultProducer);
  }

  public String name() {
    return name;
  }

  public Class<T> type() {
    return type;
  }

  /** The plugin type added to a configuration that consumes this attribute and lists no producer of it; or null. */
  public String defaultProducer() {
    return defaultProducer;
  }

  int index() {
    return index;
  }

  static int count() {
    return NEXT_INDEX.get();
  }

  @Override
  public String toString() {
    return name;
  }
}
