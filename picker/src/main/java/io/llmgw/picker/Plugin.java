package io.llmgw.picker;

/**
 * Something the request lifecycle runs at one of its extension points, known by a type name as in the reference
 * EPP's plugin configuration ({@code queue-scorer}, {@code max-score-picker}, {@code adapter-residency-filter}, …).
 */
public interface Plugin {
  String type();
}
