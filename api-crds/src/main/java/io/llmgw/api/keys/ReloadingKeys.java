package io.llmgw.api.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An API keys file (a Secret mount), read at start — a bad file stops start-up — and again every period. An edit is
 * taken entry by entry: the well-formed entries replace the keys (so a key removed in the same edit as a typo
 * elsewhere is revoked at once), the others are refused and left out, with one ERROR naming them (never a key or a
 * hash). Only an edit that cannot be read as a keys file at all keeps the last good keys serving.
 */
public final class ReloadingKeys implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeys.class);

  private final Path file;
  private volatile ApiKeys keys;
  private byte[] lastRead;
  private String lastProblem;
  private final AtomicLong refused = new AtomicLong();
  private ScheduledFuture<?> reload;

  private ReloadingKeys(Path file, ApiKeys keys, byte[] read) {
    this.file = file;
    this.keys = keys;
    this.lastRead = read;
  }

  public static ReloadingKeys start(Path file, Duration every, ScheduledExecutorService scheduler)
      throws IOException {
    byte[] read;
    try {
      read = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IOException("API keys file " + file + ": no such file");
    } catch (IOException e) {
      throw new IOException("API keys file " + file + " cannot be read (" + e.getClass().getSimpleName() + ")");
    }
    ApiKeys keys;
    try {
      keys = ApiKeys.parse(new String(read, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IOException("API keys file " + file + ": " + e.getMessage());
    }
    ReloadingKeys r = new ReloadingKeys(file, keys, read);
    LOG.info("API keys: {} key(s) from {}, read again every {} ms", keys.size(), file, every.toMillis());
    r.reload = scheduler.scheduleWithFixedDelay(r::reloadNow, every.toMillis(), every.toMillis(),
        TimeUnit.MILLISECONDS);
    return r;
  }

  public ApiKeys keys() {
    return keys;
  }

  /** Edits refused whole or in part since start. */
  public long refusedReloads() {
    return refused.get();
  }

  /** Reads the file now; the scheduler calls this every period. */
  public synchronized void reloadNow() {
    byte[] read;
    try {
      read = Files.readAllBytes(file);
    } catch (IOException e) {
      problem("cannot be read (" + e.getClass().getSimpleName() + ")");
      return;
    }
    if (Arrays.equals(read, lastRead)) {
      return;
    }
    try {
      ApiKeys.Reading reading = ApiKeys.read(new String(read, StandardCharsets.UTF_8));
      keys = reading.keys();
      lastRead = read;
      lastProblem = null;
      if (reading.refused().isEmpty()) {
        LOG.info("API keys: {} key(s) from {} after an edit", reading.keys().size(), file);
      } else {
        refused.incrementAndGet();
        LOG.error("API keys file {}: {} entr{} refused and left out ({}); the {} well-formed key(s) are taken, so "
            + "keys the edit removed are revoked", file, reading.refused().size(),
            reading.refused().size() == 1 ? "y" : "ies", String.join("; ", reading.refused().subList(0,
                Math.min(10, reading.refused().size()))) + (reading.refused().size() > 10 ? "; …" : ""),
            reading.keys().size());
      }
    } catch (IOException e) {
      problem(e.getMessage());
    }
  }

  private void problem(String problem) {
    if (!problem.equals(lastProblem)) {
      refused.incrementAndGet();
      LOG.error("API keys file {} {}; keeping the {} key(s) read before", file, problem, keys.size());
      lastProblem = problem;
    }
  }

  @Override
  public void close() {
    if (reload != null) {
      reload.cancel(false);
    }
  }
}
