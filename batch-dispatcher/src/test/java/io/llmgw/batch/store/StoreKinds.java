package io.llmgw.batch.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The stores a contract test runs against: SQLite in a fresh file, and a real {@code redis-server} (started once for
 * the test JVM, each store under a key prefix of its own) where one is installed ({@code .ci/run} installs it).
 */
final class StoreKinds {
  record Kind(String name, Supplier<BatchStore> open) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Path dir;
  private static LocalRedis redis;
  private static int counter;

  private StoreKinds() {}

  static synchronized Stream<Kind> all() {
    try {
      if (dir == null) {
        dir = Files.createTempDirectory("llmgw-store-contract");
        if (LocalRedis.available()) {
          redis = LocalRedis.start(dir, false);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(StoreKinds::cleanUp));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    Kind sqlite = new Kind("sqlite", () -> SqliteStore.open(dir.resolve("s" + next() + ".db")));
    return redis == null ? Stream.of(sqlite) : Stream.of(sqlite,
        new Kind("redis", () -> RedisStore.connect(redis.uri(), "t" + next() + ":", Duration.ofSeconds(5))));
  }

  /** Every result of the batch, in input line order. */
  static java.util.List<LineResult> results(BatchStore s, String batchId) {
    java.util.List<LineResult> out = new java.util.ArrayList<>();
    s.eachResult(batchId, out::addAll);
    out.sort(java.util.Comparator.comparingInt(LineResult::line));
    return out;
  }

  private static synchronized int next() {
    return ++counter;
  }

  private static void cleanUp() {
    try {
      if (redis != null) {
        redis.close();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    io.llmgw.api.TempTree.delete(dir);
  }
}
