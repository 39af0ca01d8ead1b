package io.llmgw.batch.store;

import java.util.List;
import java.util.Map;

/**
 * One batch as it is stored. Timestamps are epoch seconds (OpenAI's unit), null until reached; the request counts live
 * apart from this record in the store, because every finished line changes them.
 *
 * @param finalStatus where a {@code finalizing} batch ends: completed or expired (a crash while finalizing resumes it)
 * @param owner the tenant it belongs to ({@code ""} when the service has no tenants, or the batch is older than tenants)
 * @param validationStarts how many lives of the service began its validation (once each): one that never ended
 *     because the service stopped is counted here, so a batch whose validation keeps stopping the service is failed,
 *     not retried for ever (not part of OpenAI's batch object)
 */
public record Batch(String id, String endpoint, String inputFileId, String completionWindow, BatchStatus status,
    BatchStatus finalStatus, Map<String, String> metadata, List<LineError> errors, int total, long createdAt,
    long expiresAt, Long inProgressAt, Long finalizingAt, Long completedAt, Long failedAt, Long expiredAt,
    Long cancellingAt, Long cancelledAt, String outputFileId, String errorFileId, String owner, int validationStarts) {

  public Batch {
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    errors = errors == null ? List.of() : List.copyOf(errors);
    owner = owner == null ? "" : owner;
  }

  public static Batch created(String id, String endpoint, String inputFileId, String window, Map<String, String> meta,
      long now, long expiresAt) {
    return created(id, endpoint, inputFileId, window, meta, now, expiresAt, "");
  }

  public static Batch created(String id, String endpoint, String inputFileId, String window, Map<String, String> meta,
      long now, long expiresAt, String owner) {
    return new Batch(id, endpoint, inputFileId, window, BatchStatus.VALIDATING, null, meta, List.of(), 0, now,
        expiresAt, null, null, null, null, null, null, null, null, null, owner, 0);
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
        outputFileId, errorFileId, owner, validationStarts);
  }

  /** The batch with one more start of its validation counted. */
  public Batch withValidationStart() {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, finalStatus, metadata, errors, total,
        createdAt,
        expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        outputFileId, errorFileId, owner, validationStarts + 1);
  }

  public Batch withValidation(int lines, List<LineError> problems) {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, finalStatus, metadata, problems, lines,
        createdAt, expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        outputFileId, errorFileId, owner, validationStarts);
  }

  public Batch finalizingTo(BatchStatus end) {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, end, metadata, errors, total, createdAt,
        expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        outputFileId, errorFileId, owner, validationStarts);
  }

  public Batch withFiles(String output, String error) {
    return new Batch(id, endpoint, inputFileId, completionWindow, status, finalStatus, metadata, errors, total,
        createdAt, expiresAt, inProgressAt, finalizingAt, completedAt, failedAt, expiredAt, cancellingAt, cancelledAt,
        output, error, owner, validationStarts);
  }
}
