package io.llmgw.batch.upload;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;

/**
 * A request's body as a blocking stream for a worker thread, holding at most about {@link #HIGH_WATER} bytes: the
 * request is paused above it and resumed once the reader has taken it below {@link #LOW_WATER}. A read waits at most
 * until the idle deadline (no byte for that long) or the whole upload's deadline, whichever is first, and then fails
 * with {@link Timeout}; a client that goes away fails it with {@link Gone}. The event loop offers, the worker reads.
 */
final class RequestInput extends InputStream {
  static final int HIGH_WATER = 1 << 20;
  static final int LOW_WATER = 256 << 10;

  /** The client sent nothing for too long, or the upload took longer than it may. */
  static final class Timeout extends IOException {
    Timeout(String message) {
      super(message);
    }
  }

  /** The connection closed or failed before the body ended. */
  static final class Gone extends IOException {
    Gone(String message) {
      super(message);
    }
  }

  private final HttpServerRequest request;
  private final Context context;
  private final long idleNanos;
  private final long deadlineNanos;
  private final ArrayDeque<Buffer> queue = new ArrayDeque<>();
  private int headAt;
  private long queued;
  private long lastByteNanos;
  private boolean paused;
  private boolean ended;
  private IOException failure;

  RequestInput(HttpServerRequest request, Context context, long idleNanos, long uploadNanos) {
    this.request = request;
    this.context = context;
    this.idleNanos = idleNanos;
    long now = System.nanoTime();
    this.deadlineNanos = now + uploadNanos;
    this.lastByteNanos = now;
  }

  /** Starts taking the body (on the event loop). */
  RequestInput attach() {
    request.handler(this::offer);
    request.endHandler(v -> end());
    request.exceptionHandler(e -> fail(new Gone("the request failed: " + e.getMessage())));
    request.response().closeHandler(v -> fail(new Gone("the client closed the connection")));
    return this;
  }

  private synchronized void offer(Buffer b) {
    if (failure != null) {
      return;
    }
    queue.add(b);
    queued += b.length();
    lastByteNanos = System.nanoTime();
    if (queued > HIGH_WATER && !paused) {
      paused = true;
      request.pause();
    }
    notifyAll();
  }

  private synchronized void end() {
    ended = true;
    notifyAll();
  }

  synchronized void fail(IOException e) {
    if (failure == null && !ended) {
      failure = e;
      queue.clear();
      queued = 0;
    }
    notifyAll();
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public synchronized int read(byte[] into, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (queue.isEmpty()) {
      if (failure != null) {
        throw failure;
      }
      if (ended) {
        return -1;
      }
      long now = System.nanoTime();
      long wait = Math.min(lastByteNanos + idleNanos, deadlineNanos) - now;
      if (wait <= 0) {
        failure = new Timeout(now - deadlineNanos >= 0 ? "the upload took longer than it may"
            : "the client sent nothing for " + idleNanos / 1_000_000_000L + " s");
        throw failure;
      }
      try {
        wait(Math.max(1, wait / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("the service is stopping");
      }
    }
    if (System.nanoTime() - deadlineNanos >= 0) {
      failure = new Timeout("the upload took longer than it may");
      throw failure;
    }
    Buffer head = queue.peek();
    int n = Math.min(len, head.length() - headAt);
    head.getBytes(headAt, headAt + n, into, off);
    headAt += n;
    queued -= n;
    if (headAt == head.length()) {
      queue.poll();
      headAt = 0;
    }
    if (paused && queued < LOW_WATER) {
      paused = false;
      context.runOnContext(v -> request.resume());
    }
    return n;
  }
}
