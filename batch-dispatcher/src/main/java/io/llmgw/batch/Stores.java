package io.llmgw.batch;

import io.llmgw.api.SettingException;
import io.llmgw.batch.store.BatchStore;
import io.llmgw.batch.store.RedisStore;
import io.llmgw.batch.store.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;

/** Opens the store a {@code --store} value names: {@code sqlite:FILE} or {@code redis://host:port[/db]}. */
public final class Stores {
  private Stores() {}

  public static BatchStore open(String spec) {
    if (spec.startsWith("sqlite:")) {
      return SqliteStore.open(Path.of(spec.substring("sqlite:".length())));
    }
    if (spec.startsWith("redis://")) {
      return RedisStore.connect(spec, "llmgw:batch:", Duration.ofSeconds(5));
    }
    throw new SettingException("store", "must be sqlite:FILE or redis://host:port, not '" + spec + "'");
  }
}
