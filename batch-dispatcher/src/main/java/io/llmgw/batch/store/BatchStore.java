package io.llmgw.batch.store;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Everything the batch service keeps: files, batches, the queue of lines still to send and the lines' results. Two
 * implementations: {@link SqliteStore} (one process, the default) and {@link RedisStore} (several dispatchers).
 *
 * <p>The contract that makes results exactly-once over at-least-once delivery: a line stays queued until
 * {@link #finish} writes its result; {@code finish} writes a result only if none exists for its {@code custom_id} and
 * counts it once; a line whose claim is lost (its dispatcher died) is delivered again. Times are epoch milliseconds
 * unless a record says otherwise.
 */
public interface BatchStore extends AutoCloseable {

  /**
   * What one read or write of file content moves: files are stored and read in pieces of this size (the last one
   * shorter), so no call holds a whole file in memory or holds the store while a client downloads it.
   */
  int CONTENT_PIECE = 1 << 20;

  /**
   * Writes piece {@code index} of the content of a file not yet stored; it stays invisible until {@link
   * #putFile(StoredFile)} (pieces left by a writer that died are removed when the store opens, or expire). Writing a
   * piece again replaces it.
   */
  void putPiece(String fileId, int index, byte[] piece);

  /**
   * Makes the file whose pieces are written visible under {@code file.id()}; when a file with that id exists already,
   * nothing changes and the answer is false.
   */
  boolean putFile(StoredFile file);

  /** Stores a file in one go (small files; big ones go piece by piece through {@link FileContentWriter}). */
  default boolean putFile(StoredFile file, byte[] content) {
    if (file(file.id()).isPresent()) {
      return false;
    }
    for (int i = 0; i * (long) CONTENT_PIECE < content.length; i++) {
      int from = i * CONTENT_PIECE;
      putPiece(file.id(), i, Arrays.copyOfRange(content, from, Math.min(content.length, from
          + CONTENT_PIECE)));
    }
    return putFile(file);
  }

  Optional<StoredFile> file(String id);

  /**
   * Piece {@code index} of the file's content, or empty when there is none (the file is gone, or the index is past its
   * end). Reads never wait for the store's writes (see {@link FileContentReader}).
   */
  Optional<byte[]> piece(String id, int index);

  /** Every file's metadata, oldest first (for retention). */
  List<StoredFile> files();

  /** Removes the file; false when there was none. */
  boolean deleteFile(String id);

  void createBatch(Batch batch);

  Optional<Batch> batch(String id);

  /** Batches newest first, starting after the batch {@code after} (null: from the newest). */
  List<Batch> batches(String after, int limit);

  /** Ids of the batches in any of these statuses. */
  List<String> batchIds(List<BatchStatus> statuses);

  /** Removes a batch, its results and whatever of its lines is still queued (for retention). */
  void deleteBatch(String id);

  /** Replaces the batch with {@code next} only if its status is still {@code from}; false when it was not. */
  boolean transition(String id, BatchStatus from, Batch next);

  /**
   * Validation's outcome: the lines queued (in chunks, so the store is free between them), then the results known
   * already (lines no route serves) and the batch moved from validating; false when it was no longer validating (a
   * cancelled batch drops what was queued). Doing it again queues nothing twice, and a line that already has a result
   * is not queued again.
   */
  default boolean accept(Batch next, List<QueuedLine> lines, List<LineResult> known, long now) {
    enqueue(lines, now);
    return accept(next, known, now);
  }

  /**
   * Queues lines of a batch that is still validating, in chunks each its own write (validation streams them here a
   * chunk at a time, so no batch is ever held whole). Queuing a line again changes nothing; a line that already has a
   * result is not queued again.
   */
  void enqueue(List<QueuedLine> lines, long now);

  /**
   * Ends validation once every line is queued ({@link #enqueue}): the results known already are written and the batch
   * moved from validating; false when it was no longer validating (a cancelled batch drops what was queued).
   */
  boolean accept(Batch next, List<LineResult> known, long now);

  /** Up to {@code max} lines of the pool, earliest deadline first, whose deadline has not passed and whose retry time has come. */
  default List<Claim> claim(String pool, int max, String owner, long now, long visibilityMillis) {
    return claim(pool, max, Long.MAX_VALUE, owner, now, visibilityMillis);
  }

  /**
   * As {@link #claim(String, int, String, long, long)}, and lines only while their bodies add up to at most
   * {@code maxChars} (the first line is always taken): a dispatcher holds what it claims until the line is answered, so
   * a queue of large lines must not fill its heap.
   */
  List<Claim> claim(String pool, int max, long maxChars, String owner, long now, long visibilityMillis);

  /**
   * Keeps the owner's claims on these lines until {@code now + visibilityMillis}. (Redis does not record owners: a
   * line another dispatcher took over after the claim lapsed is extended too; its result is still written once.)
   */
  void extend(List<QueuedLine> lines, String owner, long now, long visibilityMillis);

  /**
   * Gives a claimed line back, to be claimed again from {@code notBefore}.
   *
   * @param refundAttempt the attempt its claim counted was not about the line (the gateway was full or unreachable),
   *     so it does not count toward the line's attempts
   */
  void release(QueuedLine line, long notBefore, boolean refundAttempt);

  /** Writes the line's result unless it has one, and takes the line off the queue; true when this call wrote it. */
  boolean finish(LineResult result);

  /**
   * Ends every line of the batch that is queued and not claimed with the result {@code make} gives it (cancel,
   * expiry); claimed lines finish on their own.
   */
  int drop(String batchId, Function<QueuedLine, LineResult> make);

  /** Lines of the batch not yet finished: queued, waiting for a retry, or claimed. */
  long remaining(String batchId);

  RequestCounts counts(String batchId, int total);

  /**
   * The batch's results in pages of a bounded size (so an output file of any size is written without holding it): in
   * input line order where the store keeps one ({@link SqliteStore}), in no set order otherwise, as OpenAI's output
   * files promise none.
   */
  void eachResult(String batchId, Consumer<List<LineResult>> page);

  QueueStats stats(String pool);

  /** Pools that have lines queued. */
  List<String> pools();

  @Override
  void close();

  /**
   * Why the store's last write failed (a full disk, a broken connection), or null while writes succeed. A store that
   * cannot tell says null.
   */
  default String writeFailure() {
    return null;
  }

  /** Tries a write that needs room; afterwards {@link #writeFailure} says whether writes work again. */
  default void probeWrite() {}
}
