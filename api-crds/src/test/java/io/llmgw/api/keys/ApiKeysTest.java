package io.llmgw.api.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/** Issue 31: the API keys file, hashed keys only; garbage is refused naming the entry, never a key or a hash. */
class ApiKeysTest {
  static final String KEY_A = "sk-team-a-secret";
  static final String FILE = "keys:\n  - {tenant: team-a, sha256: " + ApiKeys.sha256(KEY_A) + "}\n"
      + "  - {tenant: batch-service, sha256: " + ApiKeys.sha256("sk-batch") + ", actsForOthers: true}\n";

  @Test
  void aKeyNamesItsTenantByItsHashAndOnlyTheBatchServicesKeyActsForOthers() throws Exception {
    ApiKeys keys = ApiKeys.parse(FILE);
    assertThat(keys.holder(KEY_A)).isEqualTo(new ApiKeys.Holder("team-a", false));
    assertThat(keys.holder("sk-batch")).isEqualTo(new ApiKeys.Holder("batch-service", true));
    assertThat(keys.holder("sk-team-a-secreT")).isNull();
    assertThat(keys.tenants()).containsExactlyInAnyOrder("team-a", "batch-service");
  }

  @Test
  void theBearerHeaderYieldsAKeyOnlyWhenItIsPrintableAsciiAndNotTooLong() {
    assertThat(BearerKey.of("Bearer " + KEY_A)).isEqualTo(KEY_A);
    assertThat(BearerKey.of("bearer   " + KEY_A + "  ")).isEqualTo(KEY_A);
    assertThat(BearerKey.of(null)).isNull();
    assertThat(BearerKey.of("Basic dXNlcjpwYXNz")).isNull();
    assertThat(BearerKey.of("Bearer ")).isNull();
    assertThat(BearerKey.of("Bearer sk-a\u0000b")).as("a control character").isNull();
    assertThat(BearerKey.of("Bearer sk-ä")).isNull();
    assertThat(BearerKey.of("Bearer " + "k".repeat(513))).isNull();
  }

  @Test
  void garbageIsRefusedNamingTheEntryAndNeverItsHash() {
    String hash = ApiKeys.sha256(KEY_A);
    assertThatThrownBy(() -> ApiKeys.parse("keys: [")).hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> ApiKeys.parse("tenants: []")).hasMessageContaining("'keys' list");
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: team-a, sha256: ABC}"))
        .hasMessageContaining("keys[0].sha256").hasMessageContaining("64 lower-case hex");
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: Team A, sha256: " + hash + "}"))
        .hasMessageContaining("keys[0].tenant");
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: a, sha256: " + hash + "}\n  - {tenant: b, sha256: "
        + hash + "}")).hasMessageContaining("the same key is listed again, at keys[1]")
        .hasMessageNotContaining(hash);
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: a, sha256: " + hash + ", key: " + KEY_A + "}"))
        .hasMessageContaining("unknown field 'key'").hasMessageNotContaining(KEY_A);
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: a, sha256: " + hash + ", actsForOthers: maybe}"))
        .hasMessageContaining("actsForOthers");
  }

  /**
   * Issue 47: an edit is taken entry by entry. A key removed in the same edit as a typo elsewhere is revoked at once
   * (it used to stay valid: the whole edit was refused and the last good file kept); the malformed entry is left out
   * (failing closed) and named; a file that is not a keys file at all keeps the last good keys.
   */
  @Test
  void anEditIsTakenEntryByEntrySoARevocationBesideATypoStillRevokes() throws Exception {
    Path file = Files.createTempFile("keys", ".yaml");
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      Files.writeString(file, FILE + "  - {tenant: team-c, sha256: " + ApiKeys.sha256("sk-c") + "}\n");
      ReloadingKeys keys = ReloadingKeys.start(file, Duration.ofHours(1), scheduler);
      // team-a's key revoked; batch-service's entry mistyped; team-c's kept
      Files.writeString(file, "keys:\n  - {tenant: batch-service, sha256: not-a-hash, actsForOthers: true}\n"
          + "  - {tenant: team-c, sha256: " + ApiKeys.sha256("sk-c") + "}\n");
      keys.reloadNow();
      assertThat(keys.keys().holder(KEY_A)).as("the revoked key stops working").isNull();
      assertThat(keys.keys().holder("sk-batch")).as("the mistyped entry is left out").isNull();
      assertThat(keys.keys().holder("sk-c").tenant()).isEqualTo("team-c");
      assertThat(keys.refusedReloads()).isEqualTo(1);

      Files.writeString(file, "keys: [ {tenant: team-b\n"); // not YAML: which keys were meant cannot be known
      keys.reloadNow();
      assertThat(keys.keys().holder("sk-c")).as("the last good keys serve").isNotNull();
      assertThat(keys.refusedReloads()).isEqualTo(2);
      Files.writeString(file, "keys:\n  - {tenant: team-b, sha256: " + ApiKeys.sha256("sk-b") + "}\n");
      keys.reloadNow();
      assertThat(keys.keys().holder("sk-c")).as("a removed key stops working").isNull();
      assertThat(keys.keys().holder("sk-b").tenant()).isEqualTo("team-b");
      keys.close();
      Files.writeString(file, "nonsense: true\n");
      assertThatThrownBy(() -> ReloadingKeys.start(file, Duration.ofHours(1), scheduler))
          .isInstanceOf(IOException.class).hasMessageContaining(file.toString());
      Files.writeString(file, "keys:\n  - {tenant: team-b, sha256: nope}\n");
      assertThatThrownBy(() -> ReloadingKeys.start(file, Duration.ofHours(1), scheduler))
          .as("at start-up a bad entry stops it").hasMessageContaining("keys[0].sha256");
      Files.delete(file);
      assertThatThrownBy(() -> ReloadingKeys.start(file, Duration.ofHours(1), scheduler))
          .hasMessageContaining("no such file");
    } finally {
      scheduler.shutdownNow();
      Files.deleteIfExists(file);
    }
  }

  @Test
  void aKeyListedTwiceIsRefusedWhereverItIsListed() throws Exception {
    String twice = "keys:\n  - {tenant: team-a, sha256: " + ApiKeys.sha256(KEY_A) + "}\n"
        + "  - {tenant: team-b, sha256: " + ApiKeys.sha256(KEY_A) + "}\n"
        + "  - {tenant: team-c, sha256: " + ApiKeys.sha256("sk-c") + "}\n";
    ApiKeys.Reading r = ApiKeys.read(twice);
    assertThat(r.keys().holder(KEY_A)).as("which tenant it names is not clear").isNull();
    assertThat(r.keys().holder("sk-c")).isNotNull();
    assertThat(r.refused()).hasSize(2).allSatisfy(m -> assertThat(m).doesNotContain(ApiKeys.sha256(KEY_A)));
  }
}
