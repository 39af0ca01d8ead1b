package io.llmgw.batch.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk (the database capped at a few pages, as a small filesystem would cap it) fails the writes that need room,
 * with an error that says so, and the store works again once there is room, without a restart.
 */
class SqliteFullTest {
  @Test
  void aFullStoreRecoversByItselfOnceThereIsRoomAgain(@TempDir Path dir) throws Exception {
    try (SqliteStore s = SqliteStore.open(dir.resolve("batch.db"))) {
      for (int round = 0; round < 5; round++) {
        s.maxPages(s.pages()); // not one page more: the disk is full
        String big = "file-big-" + round;
        assertThatThrownBy(() -> s.putFile(new StoredFile(big, "batch", "big.jsonl", 1 << 20, 1), new byte[1 << 20]))
            .hasMessageContaining("full");
        assertThat(s.file(big)).as("nothing half written").isEmpty();
        assertThat(s.writeFailure()).contains("full");
        if (round == 0) { // later rounds' probes fit in the page the first one left
          assertThatThrownBy(s::probeWrite).as("still full").hasMessageContaining("full");
          assertThat(s.writeFailure()).isNotNull();
        }
        s.maxPages(1 << 30); // room again
        s.probeWrite();
        assertThat(s.writeFailure()).as("the probe found room").isNull();
        String small = "file-small-" + round;
        assertThat(s.putFile(new StoredFile(small, "batch", "small.jsonl", 3, 1), "{}\n".getBytes())).isTrue();
        assertThat(s.file(small)).isPresent();
      }
    }
  }
}
