package io.llmgw.extproc.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What all ext_proc streams share and must not exceed together: how many are open, and how many bytes of request
 * bodies they hold while those bodies are still arriving. Each stream takes a {@link Slot}; everything a slot holds
 * goes back when it is closed, whichever way the stream ends.
 */
public final class StreamLimits {
  private final int maxStreams;
  private final long maxBufferedBytes;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong buffered = new AtomicLong();

  public StreamLimits(int maxStreams, long maxBufferedBytes) {
    this.maxStreams = maxStreams;
    this.maxBufferedBytes = maxBufferedBytes;
  }

  public int maxStreams() {
    return maxStreams;
  }

  public long maxBufferedBytes() {
    return maxBufferedBytes;
  }

  public int openStreams() {
    return open.get();
  }

  public long bufferedBytes() {
    return buffered.get();
  }

  /** A new stream's share; {@link Slot#admitted()} says whether it fits under the stream limit. */
  Slot open() {
    boolean admitted = open.incrementAndGet() <= maxStreams;
    if (!admitted) {
      open.decrementAndGet();
    }
    return new Slot(admitted);
  }

  /** One stream's share. Not thread-safe: a stream's frames are serialised. */
  final class Slot {
    private final boolean admitted;
    private long held;
    private boolean closed;

    private Slot(boolean admitted) {
      this.admitted = admitted;
    }

    boolean admitted() {
      return admitted;
    }

    /** Takes room for {@code bytes} more of an unfinished body; false when all streams together would exceed it. */
    boolean reserve(int bytes) {
      if (buffered.addAndGet(bytes) > maxBufferedBytes) {
        buffered.addAndGet(-bytes);
        return false;
      }
      held += bytes;
      return true;
    }

    /** The body is complete (or refused): its bytes no longer count as unfinished. */
    void bodyDone() {
      buffered.addAndGet(-held);
      held = 0;
    }

    void close() {
      if (closed) {
        return;
      }
      closed = true;
      bodyDone();
      if (admitted) {
        open.decrementAndGet();
      }
    }
  }
}
