package io.llmgw.api;

/** A configuration document that cannot be accepted; the message names the source, document number and field. */
public final class ConfigException extends Exception {
  private final String source;
  private final int document;
  private final String field;
  private final String problem;

  public ConfigException(String source, int document, String field, String problem) {
    super(source + (document > 0 ? ": document " + document : "") + (field.isEmpty() ? "" : ", field " + field) + ": "
        + problem);
    this.source = source;
    this.document = document;
    this.field = field;
    this.problem = problem;
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
