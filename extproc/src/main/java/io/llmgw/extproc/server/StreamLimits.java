package io.llmgw.extproc.server;

import io.llmgw.picker.Ticker;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

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
  private final Set<Slot> arriving = ConcurrentHashMap.newKeySet();
  private final Ticker ticker;
  private final Duration idleTimeout;

  /** @param idleTimeout how long a request still arriving may send nothing ({@link #expireIdle}) */
  public StreamLimits(int maxStreams, long maxBufferedBytes, Duration idleTimeout, Ticker ticker) {
    this.maxStreams = maxStreams;
    this.maxBufferedBytes = maxBufferedBytes;
    this.idleTimeout = idleTimeout;
    this.ticker = ticker;
  }

  public Duration idleTimeout() {
    return idleTimeout;
  }

  /**
   * Ends every request that is still arriving and has sent nothing for the idle timeout; how many. One pass over the
   * streams whose requests are arriving; each stream decides under its own lock (a frame may just have come).
   */
  public int expireIdle() {
    int expired = 0;
    for (Slot slot : arriving) {
      if (slot.silent() && slot.onIdle.getAsBoolean()) {
        expired++;
      }
    }
    return expired;
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

  /**
   * A new stream's share; {@link Slot#admitted()} says whether it fits under the stream limit.
   *
   * @param onIdle ends the stream's request when it is still arriving and {@link Slot#silent}, and says whether it did
   *     (called on the sweeper's thread)
   */
  Slot open(BooleanSupplier onIdle) {
    boolean admitted = open.incrementAndGet() <= maxStreams;
    if (!admitted) {
      open.decrementAndGet();
    }
    Slot slot = new Slot(admitted, onIdle, ticker.nanos());
    if (admitted) {
      arriving.add(slot);
    }
    return slot;
  }

  /** One stream's share. Not thread-safe: a stream's frames are serialised; only the idle sweep reads it elsewhere. */
  final class Slot {
    private final boolean admitted;
    private final BooleanSupplier onIdle;
    private volatile long lastFrameNanos;
    private long held;
    private boolean closed;

    private Slot(boolean admitted, BooleanSupplier onIdle, long openedNanos) {
      this.admitted = admitted;
      this.onIdle = onIdle;
      this.lastFrameNanos = openedNanos;
    }

    /** A frame of the request arrived: its idle clock starts again. */
    void frame() {
      lastFrameNanos = ticker.nanos();
    }

    /** Nothing arrived for the idle timeout. */
    boolean silent() {
      return ticker.nanos() - lastFrameNanos > idleTimeout.toNanos();
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

    /** The body is complete (or refused): its bytes no longer count as unfinished, and its silence is the EPP's. */
    void bodyDone() {
      arriving.remove(this);
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
