package io.llmgw.batch.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47: on a disk that is really full (a 40 MiB tmpfs, where this machine lets the test mount one: CI runs as
 * root), uploads fail and readiness says why, and {@code DELETE} still frees space through the API — its write-ahead
 * log grows into the store's reserve — after which uploads fit again.
 */
class FullDiskDeleteTest {
  @TempDir
  Path dir;

  static boolean run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().transferTo(OutputStream.nullOutputStream());
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  @Test
  void aDeleteFreesSpaceOnAFullDiskAndUploadsFitAgain() throws Exception {
    Path mount = Files.createDirectories(dir.resolve("small-disk"));
    assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", mount.toString()),
        "mounting a tmpfs needs root and a machine that allows it");
    try (SqliteStore s = SqliteStore.open(mount.resolve("batch.db"))) {
      Path reserve = mount.resolve("batch.db.reserve");
      assertThat(Files.size(reserve)).isEqualTo(SpaceReserve.BYTES);
      byte[] content = new byte[1 << 20];
      for (int i = 0; i < 4; i++) {
        s.putFile(new StoredFile("file-" + i, "batch", "f.jsonl", content.length, 1), content);
      }
      s.checkpoint(); // the log's space goes back to the disk, and then something else on it takes every byte
      fillUp(mount.resolve("someone-else"));
      assertThatThrownBy(() -> s.putFile(new StoredFile("file-more", "batch", "f.jsonl", content.length, 1),
          content)).hasMessageContaining("full");
      assertThat(s.writeFailure()).as("readiness says so").contains("full");

      assertThat(s.deleteFile("file-0")).as("the delete went through on the full disk").isTrue();
      assertThat(reserve).as("by growing into the reserve").doesNotExist();
      assertThat(s.deleteFile("file-1")).isTrue();
      assertThat(s.file("file-0")).isEmpty();
      s.putFile(new StoredFile("file-again", "batch", "f.jsonl", content.length, 1), content);
      assertThat(s.file("file-again")).as("the freed pages took a new upload").isPresent();
      assertThat(s.writeFailure()).isNull();
    } finally {
      run("umount", "-l", mount.toString());
    }
  }

  static void fillUp(Path file) {
    byte[] block = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (int i = 0; i < 1_024; i++) { // at most 64 MiB: more than the disk has
        out.write(block);
        out.flush();
      }
    } catch (IOException full) {
      // no space left: what was wanted
    }
  }
}
