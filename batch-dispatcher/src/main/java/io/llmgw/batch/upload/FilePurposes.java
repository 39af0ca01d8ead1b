package io.llmgw.batch.upload;

import java.util.List;

/**
 * The purposes OpenAI's Files API accepts. Every one is stored (an SDK or a tool may upload for any), and only a
 * {@code batch} file can be a batch's input; the others are kept, listed and served back as they came.
 */
public final class FilePurposes {
  public static final String BATCH = "batch";
  public static final List<String> ALL = List.of("assistants", BATCH, "fine-tune", "vision", "user_data", "evals");
  static final String REFUSAL = "purpose must be one of " + String.join(", ", ALL) + " (OpenAI's file purposes; only "
      + "'batch' files can be a batch's input)";

  private FilePurposes() {}

  public static boolean known(String purpose) {
    return purpose != null && ALL.contains(purpose);
  }
}
