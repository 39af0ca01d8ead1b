package io.llmgw.api;

/**
 * A configuration document that cannot be accepted; the message names the source, document number, field and, where
 * the text was at hand, the line and column at which the field (or the mapping lacking it) starts.
 */
public final class ConfigException extends Exception {
  private final String source;
  private final int document;
  private final String field;
  private final String problem;
  private final YamlLocations.Position position;

  public ConfigException(String source, int document, String field, String problem) {
    this(source, document, field, problem, null);
  }

  private ConfigException(String source, int document, String field, String problem,
      YamlLocations.Position position) {
    super(source + (document > 0 ? ": document " + document : "") + (field.isEmpty() ? "" : ", field " + field)
        + (position == null ? "" : " (line " + position.line() + ", column " + position.column() + ")") + ": "
        + problem);
    this.source = source;
    this.document = document;
    this.field = field;
    this.problem = problem;
    this.position = position;
  }

  /** This problem, placed in {@code text} (the source's content) when the field can be found there. */
  public ConfigException locatedIn(String text) {
    if (position != null) {
      return this;
    }
    YamlLocations.Position found = YamlLocations.locate(text, Math.max(document, 1), field);
    return found == null ? this : new ConfigException(source, document, field, problem, found);
  }

  /** The field and what is wrong with it, without the source: what a status condition on the object itself says. */
  public String fieldProblem() {
    return field.isEmpty() ? problem : field + ": " + problem;
  }

  public String source() {
    return source;
  }

  /** 1-based index of the YAML document, 0 when the file as a whole is unreadable. */
  public int document() {
    return document;
  }

  public String field() {
    return field;
  }
}
