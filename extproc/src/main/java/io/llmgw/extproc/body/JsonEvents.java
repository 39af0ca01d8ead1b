package io.llmgw.extproc.body;

/** What {@link JsonByteScanner} reports of a body, in body order; after {@link #fail} it reports nothing more. */
interface JsonEvents {
  void fail(BodyProblem problem);

  boolean failed();

  /** An object or array opens inside {@code depthBefore} containers (0: it is the root) at {@code offset}. */
  void containerStart(int depthBefore, boolean object, long offset);

  /** A container closed, leaving {@code depthAfter} open; {@code endOffset} is one past its closing bracket. */
  void containerEnd(int depthAfter, long endOffset);

  /** How many raw bytes of the string starting here to keep and decode (0: none, only scan for its end). */
  int captureLimit(int depth, boolean key);

  /** A key of an object at {@code depth}; its name, or null when not captured. */
  void key(int depth, String name);

  /** A string value; decoded when captured within its limit, else null; offsets of its quotes, end exclusive. */
  void string(int depth, String decoded, long start, long end);

  /** A number; {@code integral} when it has no fraction or exponent ({@code value} then holds it, saturated). */
  void number(int depth, boolean integral, long value);

  /** {@code true}, {@code false} or {@code null}. */
  void literal(int depth);
}
