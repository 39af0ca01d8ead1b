package io.llmgw.batch.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The embedded store: one SQLite file in WAL mode, for one dispatcher process. Every change is one transaction, and
 * {@code synchronous=FULL} makes a commit survive a power cut as well as a killed process, so a batch id given to a
 * client is never lost. A file lock next to the database keeps a second process out; since only the owning process
 * can hold claims, the claims a dead process left are released as soon as the store opens again.
 *
 * <p>File content is read on a connection of its own ({@code reads}): in WAL mode a reader never waits for the writer,
 * so a download, one piece at a time, neither waits for nor holds up the API and the dispatcher.
 */
public final class SqliteStore implements BatchStore {
  private static final String SCHEMA = SqliteFiles.SCHEMA + SqliteBatches.SCHEMA + SqliteQueue.SCHEMA + """
      CREATE TABLE IF NOT EXISTS scratch(id INTEGER PRIMARY KEY, b BLOB);
      """;

  private static final int RESULT_PAGE = 256;
  private static final int ACCEPT_CHUNK = 500;

  private final Connection db;
  private final Connection reads;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private final SqliteTransactions txs;
  private final SqliteFiles files;
  private final SqliteBatches batches;
  private final SqliteQueue queue;
  private final SpaceReserve reserve;

  private SqliteStore(Connection db, Connection reads, FileChannel lockChannel, FileLock lock, SpaceReserve reserve) {
    this.db = db;
    this.reserve = reserve;
    this.txs = new SqliteTransactions(db);
    this.reads = reads;
    this.files = new SqliteFiles(db);
    this.batches = new SqliteBatches(db);
    this.queue = new SqliteQueue(db, batches);
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /** Opens (or creates) the store in {@code file}; fails when another process has it open. */
  public static SqliteStore open(Path file) {
    SqliteOpening o = SqliteOpening.open(file, SCHEMA);
    SpaceReserve reserve = new SpaceReserve(file);
    reserve.ensure();
    return new SqliteStore(o.db(), o.reads(), o.lockChannel(), o.lock(), reserve);
  }

  @Override
  public synchronized void putPiece(String fileId, int index, byte[] piece) {
    txs.write(() -> {
      files.putPiece(fileId, index, piece);
      return null;
    });
  }

  @Override
  public synchronized boolean putFile(StoredFile f) {
    return txs.write(() -> files.putFile(f));
  }

  @Override
  public synchronized Optional<StoredFile> file(String id) {
    return txs.read(() -> files.file(id));
  }

  /** Not synchronized on the store: it reads on its own connection, which only it uses. */
  @Override
  public Optional<byte[]> piece(String id, int index) {
    synchronized (reads) {
      try {
        return SqliteFiles.piece(reads, id, index);
      } catch (SQLException e) {
        throw new IllegalStateException("batch store: " + e.getMessage(), e);
      }
    }
  }

  @Override
  public synchronized List<StoredFile> files() {
    return txs.read(() -> files.files());
  }

  @Override
  public synchronized boolean deleteFile(String id) {
    return reserve.deleting(() -> txs.write(() -> files.deleteFile(id)), this::checkpoint);
  }

  /**
   * Copies the write-ahead log into the database and gives the log's space back to the disk: pages a delete freed are
   * the store's to reuse, but every write goes through the log first, which on a full disk has no room to grow.
   */
  synchronized void checkpoint() {
    txs.read(() -> {
      try (Statement st = db.createStatement()) {
        st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      }
      return null;
    });
  }

  @Override
  public synchronized void deleteBatch(String id) {
    txs.write(() -> {
      batches.deleteBatch(id);
      return null;
    });
  }

  @Override
  public synchronized void createBatch(Batch b) {
    txs.write(() -> {
      batches.createBatch(b);
      return null;
    });
  }

  @Override
  public synchronized Optional<Batch> batch(String id) {
    return txs.read(() -> batches.batch(id));
  }

  @Override
  public synchronized List<Batch> batches(String after, int limit) {
    return txs.read(() -> batches.batches(after, limit));
  }

  @Override
  public synchronized List<String> batchIds(List<BatchStatus> statuses) {
    return txs.read(() -> batches.batchIds(statuses));
  }

  @Override
  public synchronized boolean transition(String id, BatchStatus from, Batch next) {
    return txs.write(() -> batches.transition(id, from, next));
  }

  /**
   * Queues the lines in chunks, each its own transaction, then moves the batch, as the Redis store does: the store is
   * free between chunks, so a batch of 50,000 big lines does not hold every other call for seconds. A crash in between
   * leaves the batch validating, and validating again queues nothing twice; a batch cancelled meanwhile drops what was
   * queued.
   */
  @Override
  public void enqueue(List<QueuedLine> lines, long now) {
    for (int from = 0; from < lines.size(); from += ACCEPT_CHUNK) {
      List<QueuedLine> chunk = lines.subList(from, Math.min(lines.size(), from + ACCEPT_CHUNK));
      synchronized (this) {
        txs.write(() -> {
          queue.enqueue(chunk, now);
          return null;
        });
      }
    }
  }

  @Override
  public synchronized boolean accept(Batch next, List<LineResult> known, long now) {
    return txs.write(() -> queue.accept(next, known));
  }

  @Override
  public synchronized List<Claim> claim(String pool, int max, long maxChars, String owner, long now,
      long visibilityMillis) {
    if (max <= 0) {
      return List.of();
    }
    return txs.write(() -> queue.claim(pool, max, maxChars, owner, now, visibilityMillis));
  }

  @Override
  public synchronized void extend(List<QueuedLine> lines, String owner, long now, long visibilityMillis) {
    txs.write(() -> {
      queue.extend(lines, owner, now, visibilityMillis);
      return null;
    });
  }

  @Override
  public synchronized void release(QueuedLine l, long notBefore, boolean refundAttempt) {
    txs.write(() -> {
      queue.release(l, notBefore, refundAttempt);
      return null;
    });
  }

  @Override
  public synchronized boolean finish(LineResult result) {
    return txs.write(() -> queue.finish(result));
  }

  @Override
  public synchronized int drop(String batchId, Function<QueuedLine, LineResult> make) {
    return txs.write(() -> queue.drop(batchId, make));
  }

  @Override
  public synchronized long remaining(String batchId) {
    return txs.read(() -> queue.remaining(batchId));
  }

  @Override
  public synchronized RequestCounts counts(String batchId, int total) {
    return txs.read(() -> queue.counts(batchId, total));
  }

  /** One page per transaction: the store is free between pages. */
  @Override
  public void eachResult(String batchId, Consumer<List<LineResult>> page) {
    int after = Integer.MIN_VALUE;
    while (true) {
      int from = after;
      List<LineResult> next;
      synchronized (this) {
        next = txs.read(() -> queue.results(batchId, from, RESULT_PAGE));
      }
      if (next.isEmpty()) {
        return;
      }
      page.accept(next);
      after = next.getLast().line();
    }
  }

  @Override
  public synchronized QueueStats stats(String pool) {
    return txs.read(() -> queue.stats(pool));
  }

  @Override
  public synchronized List<String> pools() {
    return txs.read(() -> queue.pools());
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException e) {
      // closing: nothing left to save
    }
    synchronized (reads) {
      try {
        reads.close();
      } catch (SQLException e) {
        // a reading connection has nothing to save
      }
    }
    try {
      lock.release();
    } catch (IOException e) {
      // the channel's close releases it too
    }
    SqliteOpening.closeQuietly(lockChannel);
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

  @Override
  public String writeFailure() {
    return txs.writeFailure();
  }

  /**
   * Writes one 4 KiB row and commits: fails while the disk has no room for the write-ahead log to grow (or the
   * database's page cap is reached). A write that fits in pages the file already has free passes it while a larger one
   * may not; readiness then turns off again at that larger write's failure.
   */
  @Override
  public synchronized void probeWrite() {
    txs.write(() -> {
      try (Statement st = db.createStatement()) {
        st.executeUpdate("INSERT OR REPLACE INTO scratch(id, b) VALUES (1, randomblob(4096))");
      }
      return null;
    });
    reserve.ensure();
  }
}
