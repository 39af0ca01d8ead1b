package io.llmgw.batch.lifecycle;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a stream into lines ({@code \n}, an optional {@code \r} before it dropped), holding at most {@code maxBytes}
 * of a line: a longer line is counted to its end but not kept, so a file without newlines cannot take the heap.
 */
final class LineSplitter {
  private final InputStream in;
  private final int maxBytes;
  private final byte[] chunk = new byte[64 * 1024];
  private int chunkAt;
  private int chunkEnd;
  private byte[] line = new byte[256];
  private int kept;
  private long length;
  private boolean ended;

  LineSplitter(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /** Moves to the next line; false at the end of the stream. */
  boolean next() throws IOException {
    if (ended) {
      return false;
    }
    kept = 0;
    length = 0;
    boolean any = false;
    while (true) {
      if (chunkAt == chunkEnd) {
        int n = in.read(chunk);
        if (n < 0) {
          ended = true;
          return any;
        }
        chunkAt = 0;
        chunkEnd = n;
      }
      any = true;
      int from = chunkAt;
      while (chunkAt < chunkEnd && chunk[chunkAt] != '\n') {
        chunkAt++;
      }
      keep(from, chunkAt - from);
      if (chunkAt < chunkEnd) {
        chunkAt++; // the newline
        if (kept > 0 && line[kept - 1] == '\r') {
          kept--;
          length--;
        }
        return true;
      }
    }
  }

  private void keep(int from, int n) {
    length += n;
    int room = (int) Math.min(n, Math.max(0, maxBytes + 1L - kept));
    if (room > 0) {
      if (kept + room > line.length) {
        line = Arrays.copyOf(line, Math.max(kept + room, Math.min(maxBytes + 1, line.length * 2)));
      }
      System.arraycopy(chunk, from, line, kept, room);
      kept += room;
    }
  }

  /** The line's length in bytes, also when it was too long to keep. */
  long length() {
    return length;
  }

  boolean blank() {
    for (int i = 0; i < kept; i++) {
      if (line[i] != ' ' && line[i] != '\t') {
        return false;
      }
    }
    return length == kept;
  }

  /** The line's bytes, valid until the next line: {@code [0, kept())}. Only for a line within the limit. */
  byte[] bytes() {
    return line;
  }

  int kept() {
    return kept;
  }
}
