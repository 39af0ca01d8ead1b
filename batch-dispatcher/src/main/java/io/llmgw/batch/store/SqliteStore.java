package io.llmgw.batch.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The embedded store: one SQLite file in WAL mode, for one dispatcher process. Every change is one transaction, and
 * {@code synchronous=FULL} makes a commit survive a power cut as well as a killed process, so a batch id given to a
 * client is never lost. A file lock next to the database keeps a second process out; since only the owning process
 * can hold claims, the claims a dead process left are released as soon as the store opens again.
 */
public final class SqliteStore implements BatchStore {
  private static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS files(id TEXT PRIMARY KEY, purpose TEXT NOT NULL, filename TEXT NOT NULL,
        bytes INTEGER NOT NULL, created_at INTEGER NOT NULL, content BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS batches(seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL, doc TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS queue(batch_id TEXT NOT NULL, custom_id TEXT NOT NULL, line INTEGER NOT NULL,
        pool TEXT NOT NULL, deadline INTEGER NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
        enqueued_at INTEGER NOT NULL, not_before INTEGER NOT NULL DEFAULT 0, owner TEXT, claim_until INTEGER NOT NULL
        DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(batch_id, custom_id));
      CREATE INDEX IF NOT EXISTS queue_by_deadline ON queue(pool, deadline, line);
      CREATE TABLE IF NOT EXISTS results(batch_id TEXT NOT NULL, custom_id TEXT NOT NULL, line INTEGER NOT NULL,
        ok INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY(batch_id, custom_id));
      CREATE TABLE IF NOT EXISTS counts(batch_id TEXT PRIMARY KEY, completed INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS scratch(id INTEGER PRIMARY KEY, b BLOB);
      """;

  private final Connection db;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private volatile String writeFailure;
  private final SqliteFiles files;
  private final SqliteBatches batches;
  private final SqliteQueue queue;

  private SqliteStore(Connection db, FileChannel lockChannel, FileLock lock) {
    this.db = db;
    this.files = new SqliteFiles(db);
    this.batches = new SqliteBatches(db);
    this.queue = new SqliteQueue(db, batches);
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /** Opens (or creates) the store in {@code file}; fails when another process has it open. */
  public static SqliteStore open(Path file) {
    FileChannel channel = null;
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      channel = FileChannel.open(Path.of(file + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // this JVM holds it already
      }
      if (lock == null) {
        throw new IllegalStateException("another batch dispatcher has " + file + " open (the embedded store serves "
            + "one process; run several dispatchers on --store redis://...)");
      }
      Connection db = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = db.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("PRAGMA busy_timeout=5000");
        for (String ddl : SCHEMA.split(";")) {
          if (!ddl.isBlank()) {
            s.execute(ddl);
          }
        }
        s.executeUpdate("UPDATE queue SET owner = NULL, claim_until = 0 WHERE owner IS NOT NULL");
      }
      db.setAutoCommit(false);
      db.commit();
      return new SqliteStore(db, channel, lock);
    } catch (IOException | SQLException e) {
      closeQuietly(channel);
      throw new IllegalStateException("cannot open the batch store " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  @Override
  public synchronized boolean putFile(StoredFile f, byte[] content) {
    return write(() -> files.putFile(f, content));
  }

  @Override
  public synchronized Optional<StoredFile> file(String id) {
    return tx(() -> files.file(id));
  }

  @Override
  public synchronized Optional<byte[]> content(String id) {
    return tx(() -> files.content(id));
  }

  @Override
  public synchronized List<StoredFile> files() {
    return tx(() -> files.files());
  }

  @Override
  public synchronized boolean deleteFile(String id) {
    return write(() -> files.deleteFile(id));
  }

  @Override
  public synchronized void deleteBatch(String id) {
    write(() -> {
      batches.deleteBatch(id);
      return null;
    });
  }

  @Override
  public synchronized void createBatch(Batch b) {
    write(() -> {
      batches.createBatch(b);
      return null;
    });
  }

  @Override
  public synchronized Optional<Batch> batch(String id) {
    return tx(() -> batches.batch(id));
  }

  @Override
  public synchronized List<Batch> batches(String after, int limit) {
    return tx(() -> batches.batches(after, limit));
  }

  @Override
  public synchronized List<String> batchIds(List<BatchStatus> statuses) {
    return tx(() -> batches.batchIds(statuses));
  }

  @Override
  public synchronized boolean transition(String id, BatchStatus from, Batch next) {
    return write(() -> batches.transition(id, from, next));
  }

  @Override
  public synchronized boolean accept(Batch next, List<QueuedLine> lines, List<LineResult> known, long now) {
    return write(() -> queue.accept(next, lines, known, now));
  }

  @Override
  public synchronized List<Claim> claim(String pool, int max, String owner, long now, long visibilityMillis) {
    if (max <= 0) {
      return List.of();
    }
    return write(() -> queue.claim(pool, max, owner, now, visibilityMillis));
  }

  @Override
  public synchronized void extend(List<QueuedLine> lines, String owner, long now, long visibilityMillis) {
    write(() -> {
      queue.extend(lines, owner, now, visibilityMillis);
      return null;
    });
  }

  @Override
  public synchronized void release(QueuedLine l, long notBefore, boolean refundAttempt) {
    write(() -> {
      queue.release(l, notBefore, refundAttempt);
      return null;
    });
  }

  @Override
  public synchronized boolean finish(LineResult result) {
    return write(() -> queue.finish(result));
  }

  @Override
  public synchronized int drop(String batchId, Function<QueuedLine, LineResult> make) {
    return write(() -> queue.drop(batchId, make));
  }

  @Override
  public synchronized long remaining(String batchId) {
    return tx(() -> queue.remaining(batchId));
  }

  @Override
  public synchronized RequestCounts counts(String batchId, int total) {
    return tx(() -> queue.counts(batchId, total));
  }

  @Override
  public synchronized List<LineResult> results(String batchId) {
    return tx(() -> queue.results(batchId));
  }

  @Override
  public synchronized QueueStats stats(String pool) {
    return tx(() -> queue.stats(pool));
  }

  @Override
  public synchronized List<String> pools() {
    return tx(() -> queue.pools());
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException e) {
      // closing: nothing left to save
    }
    try {
      lock.release();
    } catch (IOException e) {
      // the channel's close releases it too
    }
    closeQuietly(lockChannel);
  }

  private interface Work<T> {
    T run() throws SQLException;
  }

  /** The database's size in pages (of 4 KiB), for tests that cap it. */
  synchronized long pages() throws SQLException {
    try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("PRAGMA page_count")) {
      r.next();
      return r.getLong(1);
    }
  }

  /** Caps the database at {@code pages} pages: how tests make the store's disk full and free again. */
  synchronized void maxPages(long pages) throws SQLException {
    db.setAutoCommit(true); // a pragma outside any transaction
    try (Statement s = db.createStatement()) {
      s.execute("PRAGMA max_page_count=" + pages);
    } finally {
      db.setAutoCommit(false);
    }
  }

  /** A transaction that writes: its failure or success is what {@link #writeFailure} reports. */
  private <T> T write(Work<T> work) {
    try {
      T out = tx(work);
      writeFailure = null;
      return out;
    } catch (IllegalStateException e) {
      writeFailure = e.getMessage();
      throw e;
    }
  }

  @Override
  public String writeFailure() {
    return writeFailure;
  }

  /**
   * Writes one 4 KiB row and commits: fails while the disk has no room for the write-ahead log to grow (or the
   * database's page cap is reached). A write that fits in pages the file already has free passes it while a larger one
   * may not; readiness then turns off again at that larger write's failure.
   */
  @Override
  public synchronized void probeWrite() {
    write(() -> {
      try (Statement st = db.createStatement()) {
        st.executeUpdate("INSERT OR REPLACE INTO scratch(id, b) VALUES (1, randomblob(4096))");
      }
      return null;
    });
  }

  private <T> T tx(Work<T> work) {
    try {
      T out = work.run();
      db.commit();
      return out;
    } catch (SQLException e) {
      try {
        db.rollback();
      } catch (SQLException alreadyRolledBack) {
        restartTransaction();
      }
      throw new IllegalStateException("batch store: " + e.getMessage(), e);
    }
  }

  /**
   * SQLite rolls a transaction back by itself on some errors (a full disk, an I/O error), after which the driver's
   * rollback fails and it never begins the next transaction: every later commit would fail with "no transaction is
   * active" until a restart. Leaving manual-commit mode and entering it again begins a fresh one.
   */
  private void restartTransaction() {
    try {
      db.setAutoCommit(true);
    } catch (SQLException nothingToCommit) {
      // expected: there is no transaction to end; the connection is in autocommit mode now all the same
    }
    try {
      db.setAutoCommit(false);
    } catch (SQLException e) {
      // the connection is broken; the next call fails and says so
    }
  }

  private static void closeQuietly(FileChannel c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }
  }
}
