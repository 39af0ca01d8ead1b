package io.llmgw.extproc.control;

import io.llmgw.api.ConfigChanges;
import io.llmgw.api.ConfigException;
import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.GatewayConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File mode's control loop: loads the YAML at start (failing loudly), then polls it. A change is applied once it has
 * settled (two polls in a row read the same content), so a file caught while it is being written is never applied;
 * a settled file that parses is applied as a whole, one that does not (an empty file included) is logged with file,
 * document and field, and the last good one stays. Polling content (not file events) works the same for editors'
 * atomic renames and for mounted ConfigMaps.
 */
public final class FileConfigSource implements ConfigSource {
  private static final Logger LOG = LoggerFactory.getLogger(FileConfigSource.class);

  private final Path file;
  private final Duration pollInterval;
  private final ScheduledExecutorService scheduler;
  private final Function<GatewayConfig, ConfigChanges> apply;
  private final Consumer<ConfigException> rejected;
  private byte[] lastContent;
  private byte[] lastSeen;
  private String lastProblem;
  private ScheduledFuture<?> poller;

  public FileConfigSource(SourceSettings.File settings, ScheduledExecutorService scheduler,
      Function<GatewayConfig, ConfigChanges> apply, Consumer<ConfigException> rejected) {
    this.file = settings.path();
    this.pollInterval = settings.pollInterval();
    this.scheduler = scheduler;
    this.apply = apply;
    this.rejected = rejected;
  }

  /** Loads and applies the file, then polls it; the EPP does not start on a bad file. */
  @Override
  public void start() throws ConfigException {
    loadInitial();
    poller = scheduler.scheduleWithFixedDelay(this::poll, pollInterval.toMillis(), pollInterval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void loadInitial() throws ConfigException {
    byte[] content = read();
    GatewayConfig config = ConfigFileLoader.parse(file.toString(), new String(content, StandardCharsets.UTF_8));
    lastContent = content;
    lastSeen = content;
    apply.apply(config);
    LOG.info("loaded {}: {} pools, {} routes, {} pods", file, config.pools().size(), config.routes().size(),
        config.pods().size());
  }

  /** Checks the file once; public so tests can drive it without waiting for the schedule. */
  public synchronized void poll() {
    byte[] content;
    try {
      content = read();
    } catch (ConfigException e) {
      lastContent = null;
      lastSeen = null;
      report(e);
      return;
    }
    boolean settled = Arrays.equals(content, lastSeen);
    lastSeen = content;
    if (!settled || Arrays.equals(content, lastContent)) {
      return;
    }
    lastContent = content;
    try {
      GatewayConfig config = ConfigFileLoader.parse(file.toString(), new String(content, StandardCharsets.UTF_8));
      ConfigChanges changes = apply.apply(config);
      lastProblem = null;
      LOG.info("applied edit of {}: {} ({} pools, {} routes, {} pods)", file, changes.describe(),
          config.pools().size(), config.routes().size(), config.pods().size());
    } catch (ConfigException e) {
      report(e);
    }
  }

  /** Each distinct problem is logged and counted once, not on every poll while it lasts. */
  private void report(ConfigException e) {
    if (e.getMessage().equals(lastProblem)) {
      return;
    }
    lastProblem = e.getMessage();
    LOG.error("rejected configuration: {}; the last good configuration stays in force", e.getMessage());
    rejected.accept(e);
  }

  private byte[] read() throws ConfigException {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new ConfigException(file.toString(), 0, "", "cannot read: " + e);
    }
  }

  @Override
  public void close() {
    if (poller != null) {
      poller.cancel(false);
    }
  }
}
