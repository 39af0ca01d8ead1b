package io.llmgw.batch.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Disk space set aside beside the embedded store, so that a full disk can still be freed through the API. A delete in
 * SQLite's write-ahead mode writes before it frees (the log grows by the pages it changes), so on a disk with no room
 * left even {@code DELETE /v1/files/ID} would fail and space could only be freed by hand. When a delete fails so, the
 * reserve is let go and the delete tried again; the reserve is made again once the disk has room for it.
 */
final class SpaceReserve {
  private static final Logger LOG = LoggerFactory.getLogger(SpaceReserve.class);
  static final int BYTES = 4 << 20;

  private final Path file;

  SpaceReserve(Path storeFile) {
    this.file = Path.of(storeFile + ".reserve");
  }

  /** Makes the reserve if it is missing and the disk has room for it four times over (so that it does not take back at once what a delete just gave); quietly does nothing else. */
  void ensure() {
    try {
      if (Files.size(file) == BYTES) {
        return;
      }
    } catch (IOException missing) {
      // made below
    }
    try {
      Path dir = file.toAbsolutePath().getParent();
      if (Files.getFileStore(dir).getUsableSpace() < 4L * BYTES) {
        return;
      }
      ByteBuffer zeros = ByteBuffer.allocate(1 << 20); // written, not a sparse file: the blocks must really be taken
      try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
          StandardOpenOption.WRITE)) {
        for (int i = 0; i < BYTES / zeros.capacity(); i++) {
          out.write(zeros.clear());
        }
        out.force(true);
      }
    } catch (IOException e) {
      release();
    }
  }

  /** Frees the reserve; false when there was none to free. */
  boolean release() {
    try {
      boolean had = Files.deleteIfExists(file);
      if (had) {
        LOG.warn("the batch store's disk is full: its {} MiB reserve ({}) was freed so that deletes can free space; it "
            + "is made again once the disk has room", BYTES >> 20, file.getFileName());
      }
      return had;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Runs {@code delete}; when it fails because the disk is full, frees the reserve and runs it again. Then
   * {@code afterwards} (a checkpoint that gives the log's space back: its failure on a disk still full is no one's),
   * and the reserve is made again if there is room.
   */
  <T> T deleting(Supplier<T> delete, Runnable afterwards) {
    T deleted;
    try {
      deleted = delete.get();
    } catch (IllegalStateException e) {
      if (!full(e) || !release()) {
        throw e;
      }
      deleted = delete.get(); // the log has room to grow now
    }
    try {
      afterwards.run();
    } catch (IllegalStateException stillFull) {
      // the log is copied into the database by a later checkpoint, once the disk has room
    }
    ensure();
    return deleted;
  }

  /** Whether a store error says the disk or the database is full. */
  static boolean full(RuntimeException e) {
    String m = e.getMessage();
    return m != null && m.toLowerCase(Locale.ROOT).contains("full");
  }
}
