package io.llmgw.batch.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Redis store says when it cannot write (issue 27, item 3), as the embedded one does on a full disk: a real
 * {@code redis-server} held at its memory limit refuses writes (OOM), the store reports it for readiness, and a probe
 * write clears it once Redis takes writes again.
 */
class RedisWriteFailureTest {
  @TempDir
  Path dir;

  @Test
  void aRedisThatRefusesWritesMakesTheStoreUnreadyUntilAProbeWriteWorksAgain() throws Exception {
    assumeTrue(LocalRedis.available(), "redis-server is not installed (.ci/run installs it)");
    try (LocalRedis redis = LocalRedis.start(dir, false);
        RedisStore store = RedisStore.connect(redis.uri(), "w:", Duration.ofSeconds(5))) {
      RedisClient admin = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = admin.connect()) {
        store.createBatch(Batch.created("batch_1", "/v1/chat/completions", "file-x", "24h", Map.of(), 1, 86_401));
        assertThat(store.writeFailure()).isNull();

        c.sync().configSet("maxmemory-policy", "noeviction");
        c.sync().configSet("maxmemory", "1"); // below what it uses: every write that may grow memory is refused
        assertThatThrownBy(() -> store.createBatch(Batch.created("batch_2", "/v1/chat/completions", "file-x", "24h",
            Map.of(), 1, 86_401))).hasMessageContaining("OOM");
        assertThat(store.writeFailure()).contains("OOM");
        assertThatThrownBy(store::probeWrite).hasMessageContaining("OOM");
        assertThat(store.writeFailure()).contains("OOM");
        assertThat(store.batch("batch_1")).isPresent(); // reads still work

        c.sync().configSet("maxmemory", "0");
        store.probeWrite();
        assertThat(store.writeFailure()).isNull();
        store.createBatch(Batch.created("batch_2", "/v1/chat/completions", "file-x", "24h", Map.of(), 1, 86_401));
        assertThat(store.batch("batch_2")).isPresent();
      } finally {
        admin.shutdown();
      }
    }
  }
}
