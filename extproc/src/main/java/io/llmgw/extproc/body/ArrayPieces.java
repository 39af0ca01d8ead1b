package io.llmgw.extproc.body;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * A chunk's bytes handed to a reader in the arrays protobuf holds them in, never copied: gRPC parses a body frame into
 * an array, and a scan over it should read those bytes once, not a copy of them first. Bytes held off-heap (a buffer
 * without an array) go through this thread's scratch array, a bounded piece at a time. The reader must not keep or
 * change what it is given. One per owner, made once; not thread-safe.
 */
final class ArrayPieces extends ByteOutput {
  /** Reads {@code b[from, end)}, and nothing else of {@code b}, before it returns. */
  @FunctionalInterface
  interface Reader {
    void read(byte[] b, int from, int end);
  }

  private static final int PIECE = 16 << 10;
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[PIECE]);

  private final Reader reader;

  ArrayPieces(Reader reader) {
    this.reader = reader;
  }

  /** Hands every byte of {@code chunk} to the reader, in order. */
  void readAll(ByteString chunk) {
    try {
      UnsafeByteOperations.unsafeWriteTo(chunk, this);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // nothing here throws it
    }
  }

  @Override
  public void write(byte value) {
    byte[] one = SCRATCH.get();
    one[0] = value;
    reader.read(one, 0, 1);
  }

  @Override
  public void write(byte[] value, int offset, int length) {
    reader.read(value, offset, offset + length);
  }

  @Override
  public void writeLazy(byte[] value, int offset, int length) {
    reader.read(value, offset, offset + length);
  }

  @Override
  public void write(ByteBuffer value) {
    if (value.hasArray()) {
      int from = value.arrayOffset() + value.position();
      reader.read(value.array(), from, from + value.remaining());
      return;
    }
    byte[] scratch = SCRATCH.get();
    ByteBuffer rest = value.duplicate();
    while (rest.hasRemaining()) {
      int n = Math.min(scratch.length, rest.remaining());
      rest.get(scratch, 0, n);
      reader.read(scratch, 0, n);
    }
  }

  @Override
  public void writeLazy(ByteBuffer value) {
    write(value);
  }
}
