package io.llmgw.picker;

import io.llmgw.picker.attributes.AttributeKey;
import java.util.Set;

/**
 * Something the request lifecycle runs at one of its extension points, known by a type name as in the reference
 * EPP's plugin configuration ({@code queue-scorer}, {@code max-score-picker}, {@code adapter-residency-filter}, …).
 */
public interface Plugin {
  String type();

  /**
   * The request attributes it reads. A configuration whose plugins consume an attribute that no producer makes is
   * refused at start, naming both; producers run before whatever consumes what they make.
   */
  default Set<AttributeKey<?>> consumes() {
    return Set.of();
  }
}
