package io.llmgw.api.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * An API keys file (a Secret mount), read at start — a bad file stops start-up — and again every period: a change is
 * taken whole or not at all, so a malformed edit keeps the last good keys serving, with one log line per distinct
 * problem naming the file and the entry (never a key or a hash).
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
    } catch (java.nio.file.NoSuchFileException e) {
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

  /** Edits refused since start (the file kept its last good keys). */
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
      ApiKeys parsed = ApiKeys.parse(new String(read, StandardCharsets.UTF_8));
      keys = parsed;
      lastRead = read;
      lastProblem = null;
      LOG.info("API keys: {} key(s) from {} after an edit", parsed.size(), file);
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
