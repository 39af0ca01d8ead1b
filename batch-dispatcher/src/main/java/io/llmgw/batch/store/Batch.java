package io.llmgw.batch.store;

import java.util.List;
import java.util.Map;

/**
 * One batch as it is stored. Timestamps are epoch seconds (OpenAI's unit), null until reached; the request counts live
 * apart from this record in the store, because every finished line changes them.
 *
 * @param finalStatus where a {@code finalizing} batch ends: completed or expired (a crash while finalizing resumes it)
 */
public record Batch(String id, String endpoint, String inputFileId, String completionWindow, BatchStatus status,
    BatchStatus finalStatus, Map<String, String> metadata, List<LineError> errors, int total, long createdAt,
    long expiresAt, Long inProgressAt, Long finalizingAt, Long completedAt, Long failedAt, Long expiredAt,
    Long cancellingAt, Long cancelledAt, String outputFileId, String errorFileId) {

  public Batch {
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    errors = errors == null ? List.of() : List.copyOf(errors);
  }

  public static Batch created(String id, String endpoint, String inputFileId, String window, Map<String, String> meta,
      long now, long expiresAt) {
    return new Batch(id, endpoint, inputFileId, window, BatchStatus.VALIDATING, null, meta, List.of(), 0, now,
        expiresAt, null, null, null, null, null, null, null, null, null);
  }

  /** The batch moved to {@code next} at {@code now}, with that status's timestamp set. */
  public Batch moved(BatchStatus next, long now) {
    return new Batch(id, endpoint, inputFileId, completionWindow, next, finalStatus, metadata, errors, total, createdAt,
        expiresAt,
        next == BatchStatus.IN_PROGRESS ? Long.valueOf(now) : inProgressAt,
        next == BatchStatus.FINALIZING ? Long.valueOf(now) : finalizingAt,
        next == BatchStatus.COMPLETED ? Long.valueOf(now) : completedAt,
        next == BatchStatus.FAILED ? Long.valueOf(now) : failedAt,
        next == BatchStatus.EXPIRED ? Long.valueOf(now) : expiredAt,
        next == BatchStatus.CANCELLING ? Long.valueOf(now) : cancellingAt,
        next == BatchStatus.CANCELLED ? Long.valueOf(now) : cancelledAt,
        outputFileId, errorFileId);
  }

  public Batch withValidation(int lines, List<LineError> problems) {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, finalStatus, metadata, problems, lines,
        createdAt, expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        outputFileId, errorFileId);
  }

  public Batch finalizingTo(BatchStatus end) {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, end, metadata, errors, total, createdAt,
        expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        outputFileId, errorFileId);
  }

  public Batch withFiles(String output, String error) {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, finalStatus, metadata, errors, total,
        createdAt, expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        output, error);
  }
}
