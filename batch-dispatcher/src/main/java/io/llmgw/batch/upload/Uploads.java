package io.llmgw.batch.upload;

import io.llmgw.api.ClientText;

import io.llmgw.batch.shared.BatchSettings;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.FileContentWriter;
import io.llmgw.batch.store.StoredFile;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/files} from the wire into the store, streamed: the multipart body is read as it arrives
 * ({@link RequestInput}, paused above 1 MiB), its {@code file} part, sent with a filename or as a plain form field,
 * goes into the store piece by piece ({@link TextPieces}), and nothing touches the disk outside the store. Memory per
 * upload is about a megabyte whatever the file's size; a few run at once and more are answered 503. Every way an upload
 * can end short of stored (a malformed or truncated body, a client that goes away or stops sending, a refusal, the
 * store failing) removes the pieces written, so nothing is left behind, and a crash leaves only pieces the store
 * removes when it opens.
 */
public final class Uploads implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Uploads.class);
  /** What the body may hold beyond the file: the other fields and the multipart framing. */
  private static final long FRAMING_BYTES = 64 * 1024;
  private static final int MAX_PURPOSE_BYTES = 64;

  /** How an upload ended. */
  public sealed interface Outcome {
    /** Stored and published. */
    record Stored(StoredFile file) implements Outcome {}

    /** Refused with an OpenAI-shaped error; {@code param} names the field at fault, or null. */
    record Refused(int status, String message, String param) implements Outcome {}

    /** The client went away: there is nobody to answer. */
    record Gone(String why) implements Outcome {}
  }

  private final BatchStore store;
  private final BatchSettings.InputLimits limits;
  private final ThreadPoolExecutor workers;

  /** @param concurrent uploads read at once; as many more may wait for a turn, and the rest are answered 503 */
  public Uploads(BatchStore store, BatchSettings.InputLimits limits, int concurrent) {
    this.store = store;
    this.limits = limits;
    this.workers = new ThreadPoolExecutor(concurrent, concurrent, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(concurrent), Thread.ofPlatform().name("batch-upload-", 0).daemon().factory());
  }

  /**
   * Starts reading the request's body (on its event loop); {@code done} hears the outcome once, on a worker thread or
   * the event loop. {@code file} is the file to store (its id, time and owner); its filename is replaced by the part's,
   * made safe by {@code safeName}.
   */
  public void receive(HttpServerRequest request, Context context, StoredFile file, UnaryOperator<String> safeName,
      Consumer<Outcome> done) {
    String boundary = MultipartReader.boundary(request.getHeader("content-type"));
    if (boundary == null) {
      done.accept(new Outcome.Refused(400, "send the file as multipart/form-data, with a boundary", null));
      return;
    }
    long declared = contentLength(request);
    if (declared > limits.maxFileBytes() + FRAMING_BYTES) {
      done.accept(tooLarge());
      return;
    }
    RequestInput input = new RequestInput(request, context, limits.idleDeadline().toNanos(),
        limits.uploadDeadline().toNanos()).attach();
    try {
      workers.execute(() -> done.accept(read(input, boundary, file, safeName)));
    } catch (RejectedExecutionException full) {
      input.fail(new RequestInput.Gone("refused"));
      done.accept(new Outcome.Refused(503, "too many uploads at once; try again shortly", null));
      return;
    }
    if ("100-continue".equalsIgnoreCase(request.getHeader("expect"))) {
      request.response().writeContinue(); // curl asks before it sends a large body, and waits a second without this
    }
  }

  private Outcome read(RequestInput input, String boundary, StoredFile file, UnaryOperator<String> safeName) {
    FileContentWriter writer = new FileContentWriter(store, file.id());
    boolean published = false;
    try {
      MultipartReader parts = new MultipartReader(input, boundary);
      String purpose = null;
      TextPieces content = null;
      String filename = null;
      for (MultipartReader.Part p; (p = parts.next()) != null;) {
        switch (p.name()) {
          case "purpose" -> {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            if (parts.copyPart(text, MAX_PURPOSE_BYTES) < 0) {
              return new Outcome.Refused(400, FilePurposes.REFUSAL, "purpose");
            }
            purpose = text.toString(StandardCharsets.UTF_8);
          }
          case "file" -> {
            if (content != null) {
              return new Outcome.Refused(400, "send exactly one file, in the multipart field 'file'", "file");
            }
            content = new TextPieces(writer);
            filename = p.filename();
            if (parts.copyPart(content, limits.maxFileBytes()) < 0) {
              return tooLarge();
            }
          }
          default -> {
            if (parts.copyPart(OutputStream.nullOutputStream(), FRAMING_BYTES) < 0) {
              return new Outcome.Refused(400, "the field '" + ClientText.clean(p.name())
                  + "' is larger than a field other than 'file' may be", null);
            }
          }
        }
      }
      if (!FilePurposes.known(purpose)) {
        return new Outcome.Refused(400, FilePurposes.REFUSAL, "purpose");
      }
      if (content == null) {
        return new Outcome.Refused(400, "send exactly one file, in the multipart field 'file'", "file");
      }
      if (FilePurposes.BATCH.equals(purpose) && !content.text()) {
        return new Outcome.Refused(400, "the file is not UTF-8 text (a batch file is JSON Lines)", "file");
      }
      StoredFile stored = new StoredFile(file.id(), purpose, safeName.apply(filename), content.size(),
          file.createdAt(), file.owner());
      writer.publish(stored.purpose(), stored.filename(), stored.createdAt(), stored.owner());
      published = true;
      return new Outcome.Stored(stored);
    } catch (MultipartReader.Malformed e) {
      return new Outcome.Refused(400, "the upload is not well-formed multipart/form-data: " + e.getMessage(), null);
    } catch (RequestInput.Timeout e) {
      return new Outcome.Refused(408, "the upload was not received in time: " + e.getMessage(), null);
    } catch (RequestInput.Gone e) {
      return new Outcome.Gone(e.getMessage());
    } catch (IOException | RuntimeException e) {
      LOG.warn("upload of {} failed: {}", file.id(), e.toString());
      return new Outcome.Refused(500, "the batch service could not store the file: " + e.getMessage(), null);
    } finally {
      input.fail(new RequestInput.Gone("the upload was answered")); // drops whatever else arrives
      if (!published) {
        discard(file.id());
      }
    }
  }

  private void discard(String id) {
    try {
      store.deleteFile(id); // the pieces written so far
    } catch (RuntimeException e) {
      LOG.warn("the pieces of an upload that did not complete ({}) could not be removed now: {}; the store removes "
          + "them when it next opens", id, e.toString());
    }
  }

  private Outcome.Refused tooLarge() {
    return new Outcome.Refused(413, "the upload exceeds the limit of " + limits.maxFileBytes()
        + " bytes", null);
  }

  private static long contentLength(HttpServerRequest request) {
    String value = request.getHeader("content-length");
    try {
      return value == null ? -1 : Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    workers.shutdownNow();
  }
}
