package io.llmgw.batch.store;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * Writes a file's content into the store piece by piece as it is produced (at most one piece in memory), then makes it
 * visible with {@link #publish}. Until then nobody sees it; a writer that dies leaves only invisible pieces. Its pieces
 * replace those of a file stored under the same id: write only under a fresh id, or one whose content is the same
 * (an output file written again after a restart).
 */
public final class FileContentWriter extends OutputStream {
  private final BatchStore store;
  private final String fileId;
  private final byte[] buffer = new byte[BatchStore.CONTENT_PIECE];
  private int filled;
  private int index;
  private long written;

  public FileContentWriter(BatchStore store, String fileId) {
    this.store = store;
    this.fileId = fileId;
  }

  @Override
  public void write(int b) {
    if (filled == buffer.length) {
      flushPiece();
    }
    buffer[filled++] = (byte) b;
    written++;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    while (len > 0) {
      if (filled == buffer.length) {
        flushPiece();
      }
      int n = Math.min(len, buffer.length - filled);
      System.arraycopy(b, off, buffer, filled, n);
      filled += n;
      off += n;
      len -= n;
      written += n;
    }
  }

  public String fileId() {
    return fileId;
  }

  /** Bytes written so far. */
  public long size() {
    return written;
  }

  /**
   * Writes the last piece and stores the file's metadata (its size is what was written): false when a file with the
   * id existed already.
   */
  public boolean publish(String purpose, String filename, long createdAt, String owner) {
    if (filled > 0) {
      flushPiece();
    }
    return store.putFile(new StoredFile(fileId, purpose, filename, written, createdAt, owner));
  }

  private void flushPiece() {
    store.putPiece(fileId, index++, Arrays.copyOf(buffer, filled));
    filled = 0;
  }
}
