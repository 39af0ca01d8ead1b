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
        + hash + "}")).hasMessageContaining("keys[1].sha256: the same key is listed twice")
        .hasMessageNotContaining(hash);
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: a, sha256: " + hash + ", key: " + KEY_A + "}"))
        .hasMessageContaining("unknown field 'key'").hasMessageNotContaining(KEY_A);
    assertThatThrownBy(() -> ApiKeys.parse("keys:\n  - {tenant: a, sha256: " + hash + ", actsForOthers: maybe}"))
        .hasMessageContaining("actsForOthers");
  }

  @Test
  void aMalformedEditKeepsTheLastGoodKeysAndAGoodOneIsTaken() throws Exception {
    Path file = Files.createTempFile("keys", ".yaml");
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      Files.writeString(file, FILE);
      ReloadingKeys keys = ReloadingKeys.start(file, Duration.ofHours(1), scheduler);
      Files.writeString(file, "keys:\n  - {tenant: team-a, sha256: not-a-hash}\n");
      keys.reloadNow();
      assertThat(keys.keys().holder(KEY_A)).as("the last good keys serve").isNotNull();
      assertThat(keys.refusedReloads()).isEqualTo(1);
      Files.writeString(file, "keys:\n  - {tenant: team-b, sha256: " + ApiKeys.sha256("sk-b") + "}\n");
      keys.reloadNow();
      assertThat(keys.keys().holder(KEY_A)).as("a removed key stops working").isNull();
      assertThat(keys.keys().holder("sk-b").tenant()).isEqualTo("team-b");
      keys.close();
      Files.writeString(file, "nonsense: true\n");
      assertThatThrownBy(() -> ReloadingKeys.start(file, Duration.ofHours(1), scheduler))
          .isInstanceOf(IOException.class).hasMessageContaining(file.toString());
      Files.delete(file);
      assertThatThrownBy(() -> ReloadingKeys.start(file, Duration.ofHours(1), scheduler))
          .hasMessageContaining("no such file");
    } finally {
      scheduler.shutdownNow();
      Files.deleteIfExists(file);
    }
  }
}
