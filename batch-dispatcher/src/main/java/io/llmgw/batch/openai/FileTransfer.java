package io.llmgw.batch.openai;

import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.FileContentReader;
import io.llmgw.batch.store.StoredFile;
import io.llmgw.batch.upload.Uploads;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File content out of the store as a stream: a download goes out piece by piece as the client takes it (uploads come in
 * the same way, {@link Uploads}). Memory per transfer is a piece or two, whatever the file's
 * size, and the store is held only while a piece moves.
 */
final class FileTransfer {
  private static final Logger LOG = LoggerFactory.getLogger(FileTransfer.class);

  private FileTransfer() {}

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
        boolean lines = f.purpose().startsWith("batch"); // input, output and error files are JSON Lines
        HttpServerResponse response = ctx.response()
            .putHeader("content-type", lines ? "application/jsonl" : "application/octet-stream")
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
