package io.llmgw.batch.store;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A stored file's content as a stream, read from the store one piece at a time: at most one piece
 * ({@link BatchStore#CONTENT_PIECE}) in memory, and the store is held only while a piece is read. A file deleted while
 * it is read ends in an {@link IOException} rather than in a short, silently truncated stream.
 */
public final class FileContentReader extends InputStream {
  private final BatchStore store;
  private final StoredFile file;
  private byte[] piece = new byte[0];
  private int index = -1;
  private int at;
  private long delivered;

  public FileContentReader(BatchStore store, StoredFile file) {
    this.store = store;
    this.file = file;
  }

  /** The next piece whole, or null at the end: what a download writes without copying. */
  public byte[] nextPiece() throws IOException {
    if (at < piece.length) {
      byte[] rest = Arrays.copyOfRange(piece, at, piece.length);
      at = piece.length;
      return rest;
    }
    return advance() ? take() : null;
  }

  private byte[] take() {
    at = piece.length;
    return piece;
  }

  private boolean advance() throws IOException {
    if (delivered >= file.bytes()) {
      return false;
    }
    index++;
    piece = store.piece(file.id(), index).orElseThrow(() -> new IOException("file " + file.id()
        + " was deleted or changed while it was read (piece " + index + " is missing)"));
    if (piece.length == 0 || delivered + piece.length > file.bytes()) {
      throw new IOException("file " + file.id() + " is damaged: piece " + index + " holds " + piece.length
          + " bytes where " + (file.bytes() - delivered) + " remain");
    }
    delivered += piece.length;
    at = 0;
    return true;
  }

  @Override
  public int read() throws IOException {
    if (at >= piece.length && !advance()) {
      return -1;
    }
    return piece[at++] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (at >= piece.length && !advance()) {
      return -1;
    }
    int n = Math.min(len, piece.length - at);
    System.arraycopy(piece, at, b, off, n);
    at += n;
    return n;
  }
}
