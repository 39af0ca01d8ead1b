package io.llmgw.batch.lifecycle;

import io.llmgw.api.LoadReport;
import io.llmgw.batch.dispatch.ResultLines;
import io.llmgw.batch.shared.PeriodicLoop;
import io.llmgw.batch.store.Batch;
import io.llmgw.batch.store.BatchStatus;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.FileContentReader;
import io.llmgw.batch.store.FileContentWriter;
import io.llmgw.batch.store.LineError;
import io.llmgw.batch.store.LineResult;
import io.llmgw.batch.store.StoredFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves batches through their statuses: validates new ones, expires lines whose completion window closed, drops the
 * queued lines of cancelled ones, and finalizes a batch once no line is left (writing its output and error files).
 * Every step is a compare-and-set on the batch's status and writes under ids derived from the batch, so several
 * dispatchers, or one restarted mid-step, can all run it: the second attempt finds the work done.
 */
public final class Lifecycle implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

  private final BatchStore store;
  private final InputValidator validator;
  private final Supplier<LoadReport> reading;
  private final Clock clock;
  private final long periodMillis;
  private final Duration retention;
  private long lastRetentionSweep = Long.MIN_VALUE / 2; // half: now minus it must not overflow
  private volatile PeriodicLoop loop;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private final Validations validations;

  /**
   * @param retention how long finished batches (with their output and error files) and uploaded files are kept
   * @param validationBytes how much memory validations may take at once (up to four batches side by side, each counted
   *     at the smaller of its file's size and {@link InputValidator#memoryBound()})
   */
  public Lifecycle(BatchStore store, InputValidator validator, Supplier<LoadReport> reading, Clock clock,
      long periodMillis, Duration retention, long validationBytes) {
    this.validations = new Validations(4, validationBytes);
    this.store = store;
    this.validator = validator;
    this.reading = reading;
    this.clock = clock;
    this.periodMillis = periodMillis;
    this.retention = retention;
  }

  public Lifecycle start() {
    loop = PeriodicLoop.start("batch-lifecycle", periodMillis, this::tick, LOG);
    return this;
  }

  /** A batch was created or cancelled: look at it now rather than at the next period. */
  public void wake() {
    PeriodicLoop l = loop;
    if (l != null) {
      l.wake();
    }
  }

  public void tick() {
    LoadReport r = reading.get();
    List<Validations.Job> jobs = new ArrayList<>();
    each(BatchStatus.VALIDATING, b -> {
      if (clock.millis() >= b.expiresAt() * 1000) {
        // validation waits for a load reading (models → pools); without one for the whole window, the batch expires
        if (store.transition(b.id(), BatchStatus.VALIDATING, b.moved(BatchStatus.EXPIRED, nowSeconds()))) {
          LOG.info("batch {}: expired before it could be validated (no reading of the pools' load)", b.id());
        }
      } else if (r != null) {
        long bytes = Math.min(validator.memoryBound(), store.file(b.inputFileId()).map(StoredFile::bytes).orElse(0L));
        jobs.add(new Validations.Job(bytes, () -> {
          try {
            validate(b, r);
          } catch (RuntimeException e) {
            skipped(b.id(), e);
          }
        }));
      }
    });
    validations.runAll(jobs);
    each(BatchStatus.IN_PROGRESS, this::progress);
    each(BatchStatus.CANCELLING, this::cancelling);
    each(BatchStatus.FINALIZING, this::finishFinalizing);
    if (clock.millis() - lastRetentionSweep >= RETENTION_SWEEP_MILLIS) {
      lastRetentionSweep = clock.millis();
      sweep();
    }
  }

  private static final long RETENTION_SWEEP_MILLIS = 3_600_000;
  /** A validation that began this often and never ended fails its batch: it may be what stops the service. */
  static final int MAX_VALIDATION_STARTS = 3;
  /** Batches whose validation this process has counted a start of and not yet seen end. */
  private final Set<String> startedHere = ConcurrentHashMap.newKeySet();
  private static final int MAX_REPORTED = 1_000;

  /**
   * Runs {@code step} on every batch in {@code status}, each on its own: a batch the store cannot read or that fails
   * its step is logged once (by id) and skipped, and the others go on.
   */
  private void each(BatchStatus status, Consumer<Batch> step) {
    for (String id : store.batchIds(List.of(status))) {
      try {
        store.batch(id).ifPresent(step);
      } catch (RuntimeException e) {
        skipped(id, e);
      }
    }
  }

  private void skipped(String id, RuntimeException e) {
    if (reported.size() < MAX_REPORTED && reported.add(id)) {
      LOG.warn("batch {}: skipped while it cannot be handled (logged once): {}", id, e.toString());
    }
  }

  /**
   * Keeps the store bounded: a batch that ended more than the retention ago goes, with its results and its output and
   * error files; so does an uploaded file that old, unless a batch still running reads it.
   */
  private void sweep() {
    long cutoff = clock.millis() / 1000 - retention.toSeconds();
    Set<String> inUse = new HashSet<>();
    for (BatchStatus active : List.of(BatchStatus.VALIDATING, BatchStatus.IN_PROGRESS, BatchStatus.FINALIZING,
        BatchStatus.CANCELLING)) {
      each(active, b -> inUse.add(b.inputFileId()));
    }
    int[] batches = {0};
    for (BatchStatus ended : List.of(BatchStatus.COMPLETED, BatchStatus.FAILED, BatchStatus.EXPIRED,
        BatchStatus.CANCELLED)) {
      each(ended, b -> {
        Long at = firstNonNull(b.completedAt(), b.failedAt(), b.expiredAt(), b.cancelledAt());
        if (at != null && at < cutoff) {
          for (String file : new String[] {b.outputFileId(), b.errorFileId()}) {
            if (file != null) {
              store.deleteFile(file);
            }
          }
          store.deleteBatch(b.id());
          batches[0]++;
        }
      });
    }
    int files = 0;
    for (StoredFile f : store.files()) {
      if (f.createdAt() < cutoff && !inUse.contains(f.id()) && store.deleteFile(f.id())) {
        files++;
      }
    }
    if (batches[0] + files > 0) {
      LOG.info("batch retention: {} batches and {} files older than {} removed", batches[0], files, retention);
    }
  }

  private static Long firstNonNull(Long... times) {
    for (Long t : times) {
      if (t != null) {
        return t;
      }
    }
    return null;
  }

  private long nowSeconds() {
    return clock.millis() / 1000;
  }

  private void validate(Batch found, LoadReport r) {
    if (found.validationStarts() >= MAX_VALIDATION_STARTS) {
      fail(found, List.of(new LineError("validation_interrupted", "the validation of this batch began "
          + found.validationStarts() + " times and never ended (the service stopped while it ran): the batch is "
          + "failed so that the others go on", null, null)));
      return;
    }
    Batch b = found;
    if (!startedHere.contains(found.id())) {
      // counted once per life of this process: a start it did not live to end is what a crash loop looks like, while
      // one that failed here (the store, for a moment) is tried again at the next tick without counting
      b = found.withValidationStart();
      if (!store.transition(b.id(), BatchStatus.VALIDATING, b)) {
        return; // cancelled meanwhile
      }
      startedHere.add(b.id());
    }
    StoredFile input = store.file(b.inputFileId()).orElse(null);
    if (input == null) {
      fail(b, List.of(new LineError("input_file_not_found", "the input file " + b.inputFileId()
          + " no longer exists", "input_file_id", null)));
      return;
    }
    InputValidator.Outcome o;
    try (InputStream in = new FileContentReader(store, input)) {
      o = validator.check(b, in);
    } catch (IOException e) {
      fail(b, List.of(new LineError("input_file_unreadable", "the input file " + b.inputFileId()
          + " could not be read: " + e.getMessage(), "input_file_id", null)));
      return;
    }
    if (!o.errors().isEmpty()) {
      fail(b, o.errors());
      return;
    }
    int[] queued = {0};
    List<LineResult> known;
    try (InputStream in = new FileContentReader(store, input)) {
      known = validator.queue(b, in, r.models(), chunk -> {
        store.enqueue(chunk, clock.millis());
        queued[0] += chunk.size();
      });
    } catch (IOException e) {
      // some lines may be queued: the batch stays validating and is read again (queuing a line again changes nothing)
      throw new UncheckedIOException("reading its input file a second time failed", e);
    }
    Batch next = b.withValidation(o.total(), List.of()).moved(BatchStatus.IN_PROGRESS, nowSeconds());
    startedHere.remove(b.id());
    if (store.accept(next, known, clock.millis())) {
      LOG.info("batch {}: {} requests queued, {} for models no route serves", b.id(), queued[0], known.size());
    }
  }

  private void fail(Batch b, List<LineError> errors) {
    startedHere.remove(b.id());
    if (store.transition(b.id(), BatchStatus.VALIDATING, b.withValidation(0, errors).moved(BatchStatus.FAILED,
        nowSeconds()))) {
      LOG.info("batch {}: failed validation: {}", b.id(), errors.getFirst().message());
    }
  }

  private void progress(Batch b) {
    if (clock.millis() >= b.expiresAt() * 1000) {
      int n = store.drop(b.id(), l -> ResultLines.unanswered(l, ResultLines.EXPIRED,
          "the request was not run before the batch's completion window closed"));
      if (n > 0) {
        LOG.info("batch {}: completion window closed; {} requests not run", b.id(), n);
      }
    }
    if (store.remaining(b.id()) > 0) {
      return;
    }
    boolean[] expired = {false};
    store.eachResult(b.id(), page -> expired[0] |= page.stream()
        .anyMatch(r -> !r.ok() && ResultLines.EXPIRED.equals(ResultLines.errorCode(r))));
    Batch next = b.finalizingTo(expired[0] ? BatchStatus.EXPIRED : BatchStatus.COMPLETED)
        .moved(BatchStatus.FINALIZING, nowSeconds());
    if (store.transition(b.id(), BatchStatus.IN_PROGRESS, next)) {
      finishFinalizing(next);
    }
  }

  private void cancelling(Batch b) {
    store.drop(b.id(), l -> ResultLines.unanswered(l, ResultLines.CANCELLED,
        "the batch was cancelled before the request was run"));
    if (store.remaining(b.id()) > 0) {
      return; // requests in flight finish first
    }
    Batch done = withFiles(b).moved(BatchStatus.CANCELLED, nowSeconds());
    store.transition(b.id(), BatchStatus.CANCELLING, done);
  }

  private void finishFinalizing(Batch b) {
    Batch done = withFiles(b).moved(b.finalStatus() == null ? BatchStatus.COMPLETED : b.finalStatus(), nowSeconds());
    if (store.transition(b.id(), BatchStatus.FINALIZING, done)) {
      LOG.info("batch {}: {}", b.id(), done.status().wire());
    }
  }

  /**
   * Writes the output and error files, a page of results at a time (ids derived from the batch, so a second attempt
   * finds them written and writes nothing).
   */
  private Batch withFiles(Batch b) {
    String suffix = b.id().startsWith("batch_") ? b.id().substring("batch_".length()) : b.id();
    String outId = "file-out-" + suffix;
    String errId = "file-err-" + suffix;
    boolean outDone = store.file(outId).isPresent();
    boolean errDone = store.file(errId).isPresent();
    FileContentWriter out = new FileContentWriter(store, outId);
    FileContentWriter err = new FileContentWriter(store, errId);
    if (!outDone || !errDone) {
      store.eachResult(b.id(), page -> {
        for (LineResult r : page) {
          if (r.ok() ? !outDone : !errDone) {
            byte[] line = (r.json() + "\n").getBytes(StandardCharsets.UTF_8);
            (r.ok() ? out : err).write(line, 0, line.length);
          }
        }
      });
    }
    return b.withFiles(published(out, outDone, b.id() + "_output.jsonl", b.owner()),
        published(err, errDone, b.id() + "_error.jsonl", b.owner()));
  }

  /** The file's id once stored (now or by an earlier attempt), or null when the batch has no such lines. */
  private String published(FileContentWriter w, boolean earlier, String name, String owner) {
    if (earlier) {
      return w.fileId();
    }
    if (w.size() == 0) {
      return null;
    }
    w.publish("batch_output", name, nowSeconds(), owner);
    return w.fileId();
  }

  @Override
  public void close() {
    if (loop != null) {
      loop.close();
    }
    validations.close();
  }
}
