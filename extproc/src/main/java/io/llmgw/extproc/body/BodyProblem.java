package io.llmgw.extproc.body;

/** Why a request body cannot be routed; each maps to a 400 with this message. */
public enum BodyProblem implements BodyScan {
  NOT_JSON("request body is not valid JSON"), NOT_AN_OBJECT("request body must be a JSON object"), MODEL_NOT_A_STRING(
      "'model' must be a non-empty string"), NO_MODEL("request body has no 'model' field"), DUPLICATE_KEY(
          "request body repeats a top-level key (servers differ on which one counts)"), TOO_DEEP(
              "request body nests deeper than " + ModelExtractor.MAX_NESTING + " levels");

  private final String message;

  BodyProblem(String message) {
    this.message = message;
  }

  public String message() {
    return message;
  }
}
