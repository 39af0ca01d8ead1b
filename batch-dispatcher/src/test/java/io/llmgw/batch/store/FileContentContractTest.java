package io.llmgw.batch.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files of any size move in pieces (issue 27, item 4): what both stores promise about a file written and read piece by
 * piece, and results read a page at a time.
 */
class FileContentContractTest {
  @TempDir
  static Path dir;

  static Stream<StoreKinds.Kind> stores() {
    return StoreKinds.all();
  }

  /** Two and a half pieces of text whose multi-byte characters straddle the pieces' ends. */
  static byte[] bigText() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < BatchStore.CONTENT_PIECE * 9 / 4; i++) {
      text.append("{\"line\":").append(i).append(",\"text\":\"é€𝄞\"}\n");
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aFileWrittenInPiecesIsInvisibleUntilPublishedAndReadsBackByteForByte(StoreKinds.Kind kind) throws Exception {
    try (BatchStore s = kind.open().get()) {
      byte[] content = bigText();
      assertThat(content.length).isGreaterThan(2 * BatchStore.CONTENT_PIECE);
      FileContentWriter w = new FileContentWriter(s, "file-big");
      for (int at = 0; at < content.length; at += 7_777) {
        w.write(content, at, Math.min(7_777, content.length - at));
      }
      assertThat(s.file("file-big")).isEmpty();
      assertThat(w.publish("batch", "big.jsonl", 5, "team-a")).isTrue();
      StoredFile f = s.file("file-big").orElseThrow();
      assertThat(f.bytes()).isEqualTo(content.length);
      assertThat(f.owner()).as("issue 31: a file belongs to its tenant").isEqualTo("team-a");
      assertThat(s.files()).extracting(StoredFile::owner).contains("team-a");
      assertThat(s.piece("file-big", 0)).hasValueSatisfying(p -> assertThat(p).hasSize(BatchStore.CONTENT_PIECE));
      try (FileContentReader in = new FileContentReader(s, f)) {
        assertThat(in.readAllBytes()).isEqualTo(content);
      }
      assertThat(new FileContentWriter(s, "file-big").publish("batch", "again.jsonl", 6, "team-b")).isFalse();
      assertThat(s.file("file-big")).contains(f);
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aFileDeletedWhileItIsReadEndsTheReadWithAnErrorNotASilentlyShortFile(StoreKinds.Kind kind) throws Exception {
    try (BatchStore s = kind.open().get()) {
      byte[] content = bigText();
      s.putFile(new StoredFile("file-gone", "batch", "in.jsonl", content.length, 5), content);
      StoredFile f = s.file("file-gone").orElseThrow();
      try (FileContentReader in = new FileContentReader(s, f)) {
        assertThat(in.readNBytes(BatchStore.CONTENT_PIECE + 10)).hasSize(BatchStore.CONTENT_PIECE + 10);
        assertThat(s.deleteFile("file-gone")).isTrue();
        assertThatThrownBy(in::readAllBytes).isInstanceOf(IOException.class).hasMessageContaining("file-gone")
            .hasMessageContaining("deleted");
      }
      assertThat(s.piece("file-gone", 0)).isEmpty();
      assertThat(s.piece("file-gone", 2)).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void resultsComeInBoundedPagesThatTogetherHoldEveryResultOnce(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      StoreContractTest.accepted(s, "batch_1", StoreContractTest.NOW + 3_600_000, 700);
      for (Claim c : s.claim("ns/pool", 700, "a", StoreContractTest.NOW, 60_000)) {
        s.finish(StoreContractTest.ok(c.item()));
      }
      List<Integer> sizes = new ArrayList<>();
      Set<String> ids = new HashSet<>();
      s.eachResult("batch_1", page -> {
        sizes.add(page.size());
        page.forEach(r -> assertThat(ids.add(r.customId())).as(r.customId()).isTrue());
      });
      assertThat(ids).hasSize(700);
      assertThat(sizes).hasSizeGreaterThan(1).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(512));
      assertThat(StoreKinds.results(s, "batch_1")).extracting(LineResult::line).isSorted().hasSize(700);
    }
  }

  /** A store written by a version that kept content whole in {@code files.content}, with a dead writer's pieces. */
  @Test
  void anOlderEmbeddedStoreHasItsWholeContentCutIntoPiecesAndOrphanPiecesRemovedWhenItOpens() throws Exception {
    Path file = dir.resolve("older.db");
    byte[] content = bigText();
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = db.createStatement()) {
      st.execute("CREATE TABLE files(id TEXT PRIMARY KEY, purpose TEXT NOT NULL, filename TEXT NOT NULL, "
          + "bytes INTEGER NOT NULL, created_at INTEGER NOT NULL, content BLOB NOT NULL)");
      try (PreparedStatement p = db.prepareStatement("INSERT INTO files VALUES ('file-old','batch','a.jsonl',?,5,?)")) {
        p.setLong(1, content.length);
        p.setBytes(2, content);
        p.executeUpdate();
      }
    }
    try (SqliteStore s = SqliteStore.open(file)) {
      s.putPiece("file-never-published", 0, new byte[] {'x'});
    }
    try (SqliteStore s = SqliteStore.open(file);
        FileContentReader in = new FileContentReader(s, s.file("file-old").orElseThrow())) {
      assertThat(in.readAllBytes()).isEqualTo(content);
      assertThat(s.piece("file-never-published", 0)).isEmpty();
      assertThat(s.file("file-old").orElseThrow().owner()).as("issue 31: older files belong to no tenant").isEmpty();
    }
  }
}
