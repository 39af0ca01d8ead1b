package io.llmgw.batch.openai;

import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.FileContentReader;
import io.llmgw.batch.store.FileContentWriter;
import io.llmgw.batch.store.StoredFile;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File content in and out of the store as streams: an upload goes from the temporary file the body handler wrote into
 * the store piece by piece (checked as UTF-8 on the way), and a download goes out piece by piece as the client takes
 * it. Memory per transfer is a piece or two, whatever the file's size, and the store is held only while a piece moves.
 */
final class FileTransfer {
  private static final Logger LOG = LoggerFactory.getLogger(FileTransfer.class);

  /** The upload was not UTF-8 text: nothing of it is visible in the store. */
  static final class NotText extends Exception {
    NotText() {
      super("not UTF-8", null, false, false);
    }
  }

  private FileTransfer() {}

  /** Stores the uploaded file's content under {@code f.id()} and publishes {@code f} with the size read. */
  static StoredFile store(BatchStore store, Path upload, StoredFile f) throws IOException, NotText {
    try {
      return copy(store, upload, f);
    } catch (IOException | NotText | RuntimeException e) {
      store.deleteFile(f.id()); // the pieces written so far
      throw e;
    }
  }

  private static StoredFile copy(BatchStore store, Path upload, StoredFile f) throws IOException, NotText {
    FileContentWriter out = new FileContentWriter(store, f.id());
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
    CharBuffer scratch = CharBuffer.allocate(64 * 1024);
    try (InputStream in = Files.newInputStream(upload)) {
      int n;
      while ((n = in.read(pending.array(), pending.position(), pending.remaining())) >= 0) {
        out.write(pending.array(), pending.position(), n);
        pending.position(pending.position() + n).flip();
        decode(utf8, pending, scratch, false);
        pending.compact(); // an incomplete character at the end waits for the next read
      }
    }
    pending.flip();
    decode(utf8, pending, scratch, true);
    if (utf8.flush(scratch).isError()) {
      throw new NotText();
    }
    StoredFile stored = new StoredFile(f.id(), f.purpose(), f.filename(), out.size(), f.createdAt(), f.owner());
    out.publish(stored.purpose(), stored.filename(), stored.createdAt(), stored.owner());
    return stored;
  }

  private static void decode(CharsetDecoder utf8, ByteBuffer in, CharBuffer scratch, boolean last) throws NotText {
    while (true) {
      scratch.clear();
      CoderResult r = utf8.decode(in, scratch, last);
      if (r.isError()) {
        throw new NotText();
      }
      if (r.isUnderflow()) {
        return;
      }
    }
  }

  /**
   * Sends the file's content, reading the next piece only once the connection has taken the last one. Called on the
   * event loop, which every step comes back to, so one download is one chain of steps. A read that fails midway (the
   * file deleted meanwhile) resets the connection: with the length announced first, the client sees a short transfer,
   * never a complete-looking one. Another owner's file is answered as one that does not exist.
   */
  static void send(RoutingContext ctx, BatchStore store, String id, String owner, Runnable notFound) {
    ctx.vertx().executeBlocking(() -> store.file(id), false).onComplete(found -> {
      if (found.failed()) {
        ctx.fail(500, found.cause());
      } else if (found.result().isEmpty() || !found.result().get().owner().equals(owner)) {
        notFound.run();
      } else {
        StoredFile f = found.result().get();
        HttpServerResponse response = ctx.response().putHeader("content-type", "application/jsonl")
            .putHeader("content-length", Long.toString(f.bytes()));
        sendNext(ctx, response, new FileContentReader(store, f));
      }
    });
  }

  private static void sendNext(RoutingContext ctx, HttpServerResponse response, FileContentReader reader) {
    if (response.closed()) {
      return; // the client went away
    }
    ctx.vertx().executeBlocking(reader::nextPiece, false).onComplete(read -> {
      if (read.failed()) {
        LOG.warn("download of {} stopped: {}", ctx.pathParam("id"), read.cause().getMessage());
        response.reset();
      } else if (read.result() == null) {
        response.end();
      } else {
        response.write(Buffer.buffer(read.result()));
        if (response.writeQueueFull()) {
          // once: a drain that came again later would start a second chain reading the same reader
          response.drainHandler(drained -> {
            response.drainHandler(null);
            sendNext(ctx, response, reader);
          });
        } else {
          sendNext(ctx, response, reader);
        }
      }
    });
  }
}
