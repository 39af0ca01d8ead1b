package io.llmgw.batch.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What both stores promise: EDF claims, exclusive claims, exactly-once results, lapsed claims delivered again. */
class StoreContractTest {
  @TempDir
  static Path dir;

  static Stream<StoreKinds.Kind> stores() {
    return StoreKinds.all();
  }

  static final long NOW = 1_800_000_000_000L;

  static Batch batch(String id) {
    return Batch.created(id, "/v1/chat/completions", "file-x", "24h", Map.of("k", "v"), NOW / 1000,
        NOW / 1000 + 86_400);
  }

  static QueuedLine line(String batch, String customId, int n, long deadline) {
    return new QueuedLine(batch, customId, n, "ns/pool", deadline, "/v1/chat/completions",
        "{\"model\":\"m\",\"n\":" + n + "}");
  }

  static Batch accepted(BatchStore s, String id, long deadline, int lines) {
    Batch b = batch(id);
    s.createBatch(b);
    List<QueuedLine> q = new ArrayList<>();
    for (int i = 1; i <= lines; i++) {
      q.add(line(id, id + "-" + i, i, deadline));
    }
    Batch next = b.withValidation(lines, List.of()).moved(BatchStatus.IN_PROGRESS, NOW / 1000);
    assertThat(s.accept(next, q, List.of(), NOW)).isTrue();
    return next;
  }

  static LineResult ok(QueuedLine l) {
    return new LineResult(l.batchId(), l.customId(), l.line(), true, "{\"custom_id\":\"" + l.customId() + "\"}");
  }

  @ParameterizedTest
  @MethodSource("stores")
  void claimsTheEarliestDeadlineFirstAndNeverTheSameLineTwice(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      accepted(s, "batch_late", NOW + 7_200_000, 3);
      accepted(s, "batch_soon", NOW + 3_600_000, 3);
      List<Claim> first = s.claim("ns/pool", 4, "a", NOW, 60_000);
      assertThat(first).extracting(c -> c.item().customId())
          .containsExactly("batch_soon-1", "batch_soon-2", "batch_soon-3", "batch_late-1");
      List<Claim> second = s.claim("ns/pool", 10, "b", NOW, 60_000);
      assertThat(second).extracting(c -> c.item().customId()).containsExactly("batch_late-2", "batch_late-3");
      assertThat(s.claim("ns/pool", 10, "c", NOW, 60_000)).isEmpty();
      assertThat(s.claim("other/pool", 10, "c", NOW, 60_000)).isEmpty();
      assertThat(s.stats("ns/pool")).isEqualTo(new QueueStats(6, NOW));
      assertThat(s.pools()).containsExactly("ns/pool");
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aResultIsWrittenAndCountedOnceWhateverRetriesHappen(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      Batch b = accepted(s, "batch_1", NOW + 3_600_000, 2);
      Claim c = s.claim("ns/pool", 1, "a", NOW, 60_000).getFirst();
      LineResult first = ok(c.item());
      assertThat(s.finish(new LineResult(first.batchId(), first.customId(), first.line(), true, first.json(), 12, 5)))
          .isTrue();
      assertThat(s.finish(new LineResult("batch_1", c.item().customId(), 1, false, "{\"late\":true}", 99, 99)))
          .isFalse();
      assertThat(s.counts(b.id(), 2)).as("the usage of the result written, once").isEqualTo(new RequestCounts(2, 1, 0,
          12, 5));
      assertThat(s.remaining(b.id())).isEqualTo(1);
      assertThat(StoreKinds.results(s, b.id())).singleElement().satisfies(r -> {
        assertThat(r.ok()).isTrue();
        assertThat(r.json()).contains(c.item().customId());
      });
      // a line finished by one dispatcher is not delivered again when another's claim on it lapses
      assertThat(s.claim("ns/pool", 10, "b", NOW + 120_000, 60_000)).extracting(x -> x.item().customId())
          .containsExactly("batch_1-2");
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aReleasedLineWaitsForItsRetryTimeAndCountsItsAttempts(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      accepted(s, "batch_1", NOW + 3_600_000, 1);
      Claim c = s.claim("ns/pool", 1, "a", NOW, 60_000).getFirst();
      assertThat(c.attempts()).isZero();
      s.release(c.item(), NOW + 5_000, false);
      assertThat(s.claim("ns/pool", 1, "a", NOW + 4_999, 60_000)).isEmpty();
      Claim again = s.claim("ns/pool", 1, "a", NOW + 5_000, 60_000).getFirst();
      assertThat(again.attempts()).isEqualTo(1);
      assertThat(again.item()).isEqualTo(c.item());
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aLineReleasedBecauseTheGatewayWasFullOrAwayKeepsItsAttempts(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      accepted(s, "batch_1", NOW + 3_600_000, 1);
      for (int i = 0; i < 10; i++) { // ten sends into an outage
        Claim c = s.claim("ns/pool", 1, "a", NOW + i, 60_000).getFirst();
        assertThat(c.attempts()).isZero();
        s.release(c.item(), NOW + i, true);
      }
      Claim c = s.claim("ns/pool", 1, "a", NOW + 10, 60_000).getFirst();
      s.release(c.item(), NOW + 10, false); // an answer about the line counts
      assertThat(s.claim("ns/pool", 1, "a", NOW + 10, 60_000).getFirst().attempts()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aLapsedClaimIsDeliveredAgainAndAnExtendedOneIsNot(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      accepted(s, "batch_1", NOW + 3_600_000, 2);
      List<Claim> held = s.claim("ns/pool", 2, "dead", NOW, 10_000);
      s.extend(List.of(held.get(1).item()), "dead", NOW + 9_000, 10_000);
      assertThat(s.claim("ns/pool", 10, "b", NOW + 9_999, 10_000)).isEmpty();
      assertThat(s.claim("ns/pool", 10, "b", NOW + 10_000, 10_000)).extracting(x -> x.item().customId())
          .containsExactly("batch_1-1");
      assertThat(s.claim("ns/pool", 10, "b", NOW + 19_000, 10_000)).extracting(x -> x.item().customId())
          .containsExactly("batch_1-2");
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void linesPastTheirDeadlineAreNotSentAndDropSkipsLinesInFlight(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      accepted(s, "batch_1", NOW + 10_000, 3);
      Claim inFlight = s.claim("ns/pool", 1, "a", NOW, 60_000).getFirst();
      assertThat(s.claim("ns/pool", 10, "a", NOW + 10_000, 60_000)).isEmpty();
      int dropped = s.drop("batch_1", l -> new LineResult(l.batchId(), l.customId(), l.line(), false, "{\"x\":1}"));
      assertThat(dropped).isEqualTo(2);
      assertThat(s.remaining("batch_1")).isEqualTo(1);
      assertThat(s.finish(ok(inFlight.item()))).isTrue();
      assertThat(s.remaining("batch_1")).isZero();
      assertThat(s.counts("batch_1", 3)).isEqualTo(new RequestCounts(3, 1, 2));
      assertThat(StoreKinds.results(s, "batch_1")).extracting(LineResult::line).containsExactly(1, 2, 3);
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void statusMovesOnlyFromWhatTheCallerSaw(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      Batch b = batch("batch_1");
      s.createBatch(b);
      Batch cancelling = b.moved(BatchStatus.CANCELLING, 5);
      assertThat(s.transition("batch_1", BatchStatus.IN_PROGRESS, cancelling)).isFalse();
      assertThat(s.transition("batch_1", BatchStatus.VALIDATING, cancelling)).isTrue();
      assertThat(s.accept(b.moved(BatchStatus.IN_PROGRESS, 6), List.of(), List.of(), NOW)).isFalse();
      assertThat(s.batch("batch_1")).contains(cancelling);
      assertThat(s.batchIds(List.of(BatchStatus.CANCELLING))).containsExactly("batch_1");
      assertThat(s.batchIds(List.of(BatchStatus.VALIDATING))).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void batchesListNewestFirstInPagesAndFilesAreWrittenOnce(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      for (int i = 1; i <= 5; i++) {
        s.createBatch(batch("batch_" + i));
      }
      assertThat(s.batches(null, 2)).extracting(Batch::id).containsExactly("batch_5", "batch_4");
      assertThat(s.batches("batch_4", 2)).extracting(Batch::id).containsExactly("batch_3", "batch_2");
      assertThat(s.batches("batch_1", 2)).isEmpty();
      StoredFile f = new StoredFile("file-1", "batch", "in.jsonl", 3, 7);
      assertThat(s.putFile(f, "abc".getBytes(StandardCharsets.UTF_8))).isTrue();
      assertThat(s.putFile(f, "xyz".getBytes(StandardCharsets.UTF_8))).isFalse();
      assertThat(s.file("file-1")).contains(f);
      assertThat(s.piece("file-1", 0)).hasValueSatisfying(c -> assertThat(new String(c, StandardCharsets.UTF_8))
          .isEqualTo("abc"));
      assertThat(s.piece("file-1", 1)).isEmpty();
      assertThat(s.file("file-2")).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void validatingTwiceQueuesNothingTwiceAndSkipsAnsweredLines(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      Batch b = batch("batch_1");
      s.createBatch(b);
      QueuedLine l1 = line("batch_1", "a", 1, NOW + 3_600_000);
      QueuedLine l2 = line("batch_1", "b", 2, NOW + 3_600_000);
      LineResult known = new LineResult("batch_1", "c", 3, false, "{\"error\":1}");
      // a first validation that died after queuing: accepted by another status, so the move fails
      s.transition("batch_1", BatchStatus.VALIDATING, b.moved(BatchStatus.CANCELLING, 1));
      s.accept(b.moved(BatchStatus.IN_PROGRESS, 1), List.of(l1, l2), List.of(known), NOW);
      s.transition("batch_1", BatchStatus.CANCELLING, b);
      s.finish(ok(l1));
      assertThat(s.accept(b.moved(BatchStatus.IN_PROGRESS, 2), List.of(l1, l2), List.of(known), NOW)).isTrue();
      assertThat(s.remaining("batch_1")).isEqualTo(1);
      assertThat(s.counts("batch_1", 3)).isEqualTo(new RequestCounts(3, 1, 1));
    }
  }

  @ParameterizedTest
  @MethodSource("stores")
  void deletingABatchTakesItsQueuedLinesResultsAndStatusAlongAndFilesGoOneByOne(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      accepted(s, "batch_1", NOW + 3_600_000, 3);
      accepted(s, "batch_2", NOW + 3_600_000, 1);
      Claim c = s.claim("ns/pool", 1, "a", NOW, 60_000).getFirst();
      s.finish(ok(c.item()));
      s.deleteBatch("batch_1");
      assertThat(s.batch("batch_1")).isEmpty();
      assertThat(StoreKinds.results(s, "batch_1")).isEmpty();
      assertThat(s.remaining("batch_1")).isZero();
      assertThat(s.batchIds(List.of(BatchStatus.IN_PROGRESS))).containsExactly("batch_2");
      assertThat(s.batches(null, 10)).extracting(Batch::id).containsExactly("batch_2");
      assertThat(s.stats("ns/pool").depth()).isEqualTo(1);
      assertThat(s.claim("ns/pool", 10, "a", NOW, 60_000)).extracting(x -> x.item().batchId())
          .containsExactly("batch_2");

      s.putFile(new StoredFile("file-old", "batch", "a.jsonl", 1, 5), new byte[] {'a'});
      s.putFile(new StoredFile("file-new", "batch", "b.jsonl", 1, 9), new byte[] {'b'});
      assertThat(s.files()).extracting(StoredFile::id).containsExactly("file-old", "file-new");
      assertThat(s.deleteFile("file-old")).isTrue();
      assertThat(s.deleteFile("file-old")).isFalse();
      assertThat(s.files()).extracting(StoredFile::id).containsExactly("file-new");
      assertThat(s.piece("file-old", 0)).isEmpty();
    }
  }

  @org.junit.jupiter.api.Test
  void theEmbeddedStoreServesOneProcessAndReleasesADeadOnesClaims() {
    Path file = dir.resolve("single.db");
    try (BatchStore s = SqliteStore.open(file)) {
      accepted(s, "batch_1", NOW + 3_600_000, 1);
      assertThat(s.claim("ns/pool", 1, "a", NOW, 60_000)).hasSize(1);
      assertThatThrownBy(() -> SqliteStore.open(file)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another batch dispatcher has").hasMessageContaining("redis://");
    }
    try (BatchStore s = SqliteStore.open(file)) {
      assertThat(s.claim("ns/pool", 1, "b", NOW, 60_000)).extracting(c -> c.attempts()).containsExactly(1);
    }
  }

  /** Issue 47: a dispatcher claims big lines a few at a time; the first is always taken, so a huge line still goes. */
  @ParameterizedTest
  @MethodSource("stores")
  void claimsStopAtTheBodiesBudgetButAlwaysTakeOneLine(StoreKinds.Kind kind) {
    try (BatchStore s = kind.open().get()) {
      Batch b = batch("batch_big");
      s.createBatch(b);
      List<QueuedLine> q = new ArrayList<>();
      for (int i = 1; i <= 5; i++) {
        q.add(new QueuedLine(b.id(), "big-" + i, i, "ns/pool", NOW + 3_600_000, "/v1/chat/completions",
            "{\"model\":\"m\",\"pad\":\"" + "x".repeat(10_000) + "\"}"));
      }
      assertThat(s.accept(b.moved(BatchStatus.IN_PROGRESS, NOW / 1000), q, List.of(), NOW)).isTrue();
      assertThat(s.claim("ns/pool", 5, 25_000, "a", NOW, 60_000)).extracting(c -> c.item().customId())
          .containsExactly("big-1", "big-2");
      assertThat(s.claim("ns/pool", 5, 10, "a", NOW, 60_000)).extracting(c -> c.item().customId())
          .as("one line over the budget still goes").containsExactly("big-3");
      assertThat(s.claim("ns/pool", 5, Long.MAX_VALUE, "a", NOW, 60_000)).extracting(c -> c.item().customId())
          .as("the lines let go are still queued").containsExactly("big-4", "big-5");
    }
  }
}
