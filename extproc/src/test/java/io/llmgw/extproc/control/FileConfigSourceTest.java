package io.llmgw.extproc.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.llmgw.api.ConfigChanges;
import io.llmgw.api.ConfigException;
import io.llmgw.api.FileModeYaml;
import io.llmgw.api.GatewayConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file's control loop driven poll by poll (the schedule is an hour, so only the test polls). */
class FileConfigSourceTest {
  static final String ONE_ROUTE = FileModeYaml.pool("pool", "sim", 8000) + FileModeYaml.SEPARATOR
      + FileModeYaml.route("chat", "pool", "chat-lora", 0);
  static final String TWO_ROUTES = ONE_ROUTE + FileModeYaml.SEPARATOR
      + FileModeYaml.route("sql", "pool", "sql-lora", 0);

  @TempDir
  Path dir;
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  final List<GatewayConfig> applied = new ArrayList<>();
  final List<ConfigException> rejected = new ArrayList<>();

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private FileConfigSource start(Path file) throws ConfigException {
    FileConfigSource source = new FileConfigSource(new SourceSettings.File(file, Duration.ofHours(1)), scheduler,
        config -> {
          applied.add(config);
          return ConfigChanges.between(GatewayConfig.empty(), config);
        }, rejected::add);
    source.start();
    return source;
  }

  /** Issue 13, item 7: truncate-then-write, as editors and `cat > file` do, never applies the half-written state. */
  @Test
  void item7AnEditAppliesOnlyOnceTheFileHasSettledAndAnEmptyFileNever() throws Exception {
    Path file = Files.writeString(dir.resolve("gw.yaml"), ONE_ROUTE);
    FileConfigSource source = start(file);
    assertThat(applied).hasSize(1);
    for (int cycle = 0; cycle < 10; cycle++) {
      Files.writeString(file, "");
      source.poll(); // the truncated file is seen once: not yet settled
      Files.writeString(file, cycle % 2 == 0 ? TWO_ROUTES : ONE_ROUTE);
      source.poll(); // changed again since the last look
      source.poll(); // the same as the last look: settled, applied
    }
    assertThat(applied).hasSize(11).allSatisfy(c -> assertThat(c.routes()).isNotEmpty());
    assertThat(applied.getLast().routes()).hasSize(1);
    assertThat(rejected).isEmpty();

    Files.writeString(file, "\n");
    source.poll();
    source.poll();
    assertThat(applied).as("the last good configuration stays").hasSize(11);
    assertThat(rejected).singleElement().extracting(Throwable::getMessage).asString().contains("no documents");
  }
}
