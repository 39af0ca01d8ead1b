package io.llmgw.batch.upload;

import io.llmgw.batch.store.FileContentWriter;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * An upload's content on its way into the store, checked as UTF-8 as it passes (a batch file is JSON Lines; files of
 * other purposes may be anything, so the bytes are written whatever they are and {@link #text()} says whether they
 * were text). Holds a piece of the store's and 64 KiB.
 */
final class TextPieces extends OutputStream {
  private final FileContentWriter out;
  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
  private final ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
  private final CharBuffer scratch = CharBuffer.allocate(64 * 1024);
  private boolean malformed;

  TextPieces(FileContentWriter out) {
    this.out = out;
  }

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    if (malformed) {
      out.write(b, off, len);
      return;
    }
    while (len > 0) {
      int n = Math.min(len, pending.remaining());
      out.write(b, off, n);
      pending.put(b, off, n);
      pending.flip();
      decode(false);
      pending.compact(); // an incomplete character at the end waits for the next write
      off += n;
      len -= n;
    }
  }

  /** Whether everything written was UTF-8 text, a last incomplete character included. */
  boolean text() {
    if (!malformed) {
      pending.flip();
      decode(true);
      malformed |= utf8.flush(scratch).isError();
      pending.clear();
    }
    return !malformed;
  }

  long size() {
    return out.size();
  }

  private void decode(boolean last) {
    while (!malformed) {
      scratch.clear();
      CoderResult r = utf8.decode(pending, scratch, last);
      if (r.isError()) {
        malformed = true;
      } else if (r.isUnderflow()) {
        return;
      }
    }
  }
}
