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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
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
      """;

  private final Connection db;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private SqliteStore(Connection db, FileChannel lockChannel, FileLock lock) {
    this.db = db;
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
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement("INSERT OR IGNORE INTO files VALUES (?,?,?,?,?,?)")) {
        p.setString(1, f.id());
        p.setString(2, f.purpose());
        p.setString(3, f.filename());
        p.setLong(4, f.bytes());
        p.setLong(5, f.createdAt());
        p.setBytes(6, content);
        return p.executeUpdate() == 1;
      }
    });
  }

  @Override
  public synchronized Optional<StoredFile> file(String id) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement(
          "SELECT id, purpose, filename, bytes, created_at FROM files WHERE id = ?")) {
        p.setString(1, id);
        try (ResultSet r = p.executeQuery()) {
          return r.next() ? Optional.of(new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getLong(4),
              r.getLong(5))) : Optional.<StoredFile>empty();
        }
      }
    });
  }

  @Override
  public synchronized Optional<byte[]> content(String id) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement("SELECT content FROM files WHERE id = ?")) {
        p.setString(1, id);
        try (ResultSet r = p.executeQuery()) {
          return r.next() ? Optional.of(r.getBytes(1)) : Optional.<byte[]>empty();
        }
      }
    });
  }

  @Override
  public synchronized List<StoredFile> files() {
    return tx(() -> {
      List<StoredFile> out = new ArrayList<>();
      try (Statement st = db.createStatement(); ResultSet r = st.executeQuery(
          "SELECT id, purpose, filename, bytes, created_at FROM files ORDER BY created_at")) {
        while (r.next()) {
          out.add(new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), r.getLong(5)));
        }
      }
      return out;
    });
  }

  @Override
  public synchronized boolean deleteFile(String id) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement("DELETE FROM files WHERE id = ?")) {
        p.setString(1, id);
        return p.executeUpdate() == 1;
      }
    });
  }

  @Override
  public synchronized void deleteBatch(String id) {
    tx(() -> {
      for (String table : List.of("batches", "queue", "results", "counts")) {
        try (PreparedStatement p = db.prepareStatement("DELETE FROM " + table + " WHERE "
            + (table.equals("batches") ? "id" : "batch_id") + " = ?")) {
          p.setString(1, id);
          p.executeUpdate();
        }
      }
      return null;
    });
  }

  @Override
  public synchronized void createBatch(Batch b) {
    tx(() -> {
      try (PreparedStatement p = db.prepareStatement("INSERT INTO batches(id, status, doc) VALUES (?,?,?)")) {
        p.setString(1, b.id());
        p.setString(2, b.status().name());
        p.setString(3, BatchJsonCodec.write(b));
        p.executeUpdate();
      }
      try (PreparedStatement p = db.prepareStatement("INSERT OR IGNORE INTO counts(batch_id) VALUES (?)")) {
        p.setString(1, b.id());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public synchronized Optional<Batch> batch(String id) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement("SELECT doc FROM batches WHERE id = ?")) {
        p.setString(1, id);
        try (ResultSet r = p.executeQuery()) {
          return r.next() ? Optional.of(BatchJsonCodec.read(r.getString(1), Batch.class)) : Optional.<Batch>empty();
        }
      }
    });
  }

  @Override
  public synchronized List<Batch> batches(String after, int limit) {
    return tx(() -> {
      String sql = after == null ? "SELECT doc FROM batches ORDER BY seq DESC LIMIT ?"
          : "SELECT doc FROM batches WHERE seq < (SELECT seq FROM batches WHERE id = ?) ORDER BY seq DESC LIMIT ?";
      try (PreparedStatement p = db.prepareStatement(sql)) {
        int i = 1;
        if (after != null) {
          p.setString(i++, after);
        }
        p.setInt(i, limit);
        List<Batch> out = new ArrayList<>();
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            out.add(BatchJsonCodec.read(r.getString(1), Batch.class));
          }
        }
        return out;
      }
    });
  }

  @Override
  public synchronized List<String> batchIds(List<BatchStatus> statuses) {
    return tx(() -> {
      List<String> out = new ArrayList<>();
      try (PreparedStatement p = db.prepareStatement("SELECT id FROM batches WHERE status = ? ORDER BY seq")) {
        for (BatchStatus s : statuses) {
          p.setString(1, s.name());
          try (ResultSet r = p.executeQuery()) {
            while (r.next()) {
              out.add(r.getString(1));
            }
          }
        }
      }
      return out;
    });
  }

  @Override
  public synchronized boolean transition(String id, BatchStatus from, Batch next) {
    return tx(() -> replace(id, from, next));
  }

  private boolean replace(String id, BatchStatus from, Batch next) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("UPDATE batches SET status = ?, doc = ? WHERE id = ? AND status = ?")) {
      p.setString(1, next.status().name());
      p.setString(2, BatchJsonCodec.write(next));
      p.setString(3, id);
      p.setString(4, from.name());
      return p.executeUpdate() == 1;
    }
  }

  @Override
  public synchronized boolean accept(Batch next, List<QueuedLine> lines, List<LineResult> known, long now) {
    return tx(() -> {
      if (!replace(next.id(), BatchStatus.VALIDATING, next)) {
        return false;
      }
      for (LineResult r : known) {
        writeResult(r);
      }
      try (PreparedStatement p = db.prepareStatement("INSERT OR IGNORE INTO queue(batch_id, custom_id, line, pool, "
          + "deadline, url, body, enqueued_at) SELECT ?,?,?,?,?,?,?,? WHERE NOT EXISTS (SELECT 1 FROM results "
          + "WHERE batch_id = ? AND custom_id = ?)")) {
        for (QueuedLine l : lines) {
          p.setString(1, l.batchId());
          p.setString(2, l.customId());
          p.setInt(3, l.line());
          p.setString(4, l.pool());
          p.setLong(5, l.deadline());
          p.setString(6, l.url());
          p.setString(7, l.body());
          p.setLong(8, now);
          p.setString(9, l.batchId());
          p.setString(10, l.customId());
          p.addBatch();
        }
        p.executeBatch();
      }
      return true;
    });
  }

  @Override
  public synchronized List<Claim> claim(String pool, int max, String owner, long now, long visibilityMillis) {
    if (max <= 0) {
      return List.of();
    }
    return tx(() -> {
      List<Claim> out = new ArrayList<>();
      try (PreparedStatement p = db.prepareStatement("SELECT batch_id, custom_id, line, pool, deadline, url, body, "
          + "attempts FROM queue WHERE pool = ? AND deadline > ? AND not_before <= ? AND (owner IS NULL OR "
          + "claim_until <= ?) ORDER BY deadline, line LIMIT ?")) {
        p.setString(1, pool);
        p.setLong(2, now);
        p.setLong(3, now);
        p.setLong(4, now);
        p.setInt(5, max);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            out.add(new Claim(new QueuedLine(r.getString(1), r.getString(2), r.getInt(3), r.getString(4), r.getLong(5),
                r.getString(6), r.getString(7)), r.getInt(8)));
          }
        }
      }
      try (PreparedStatement p = db.prepareStatement("UPDATE queue SET owner = ?, claim_until = ?, "
          + "attempts = attempts + 1 WHERE batch_id = ? AND custom_id = ?")) {
        for (Claim c : out) {
          p.setString(1, owner);
          p.setLong(2, now + visibilityMillis);
          p.setString(3, c.item().batchId());
          p.setString(4, c.item().customId());
          p.addBatch();
        }
        p.executeBatch();
      }
      return out;
    });
  }

  @Override
  public synchronized void extend(List<QueuedLine> lines, String owner, long now, long visibilityMillis) {
    tx(() -> {
      try (PreparedStatement p = db.prepareStatement(
          "UPDATE queue SET claim_until = ? WHERE batch_id = ? AND custom_id = ? AND owner = ?")) {
        for (QueuedLine l : lines) {
          p.setLong(1, now + visibilityMillis);
          p.setString(2, l.batchId());
          p.setString(3, l.customId());
          p.setString(4, owner);
          p.addBatch();
        }
        p.executeBatch();
      }
      return null;
    });
  }

  @Override
  public synchronized void release(QueuedLine l, long notBefore) {
    tx(() -> {
      try (PreparedStatement p = db.prepareStatement("UPDATE queue SET owner = NULL, claim_until = 0, not_before = ? "
          + "WHERE batch_id = ? AND custom_id = ?")) {
        p.setLong(1, notBefore);
        p.setString(2, l.batchId());
        p.setString(3, l.customId());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public synchronized boolean finish(LineResult result) {
    return tx(() -> writeResult(result));
  }

  private boolean writeResult(LineResult r) throws SQLException {
    boolean written;
    try (PreparedStatement p = db.prepareStatement("INSERT OR IGNORE INTO results VALUES (?,?,?,?,?)")) {
      p.setString(1, r.batchId());
      p.setString(2, r.customId());
      p.setInt(3, r.line());
      p.setInt(4, r.ok() ? 1 : 0);
      p.setString(5, r.json());
      written = p.executeUpdate() == 1;
    }
    if (written) {
      try (PreparedStatement p = db.prepareStatement(r.ok()
          ? "UPDATE counts SET completed = completed + 1 WHERE batch_id = ?"
          : "UPDATE counts SET failed = failed + 1 WHERE batch_id = ?")) {
        p.setString(1, r.batchId());
        p.executeUpdate();
      }
    }
    try (PreparedStatement p = db.prepareStatement("DELETE FROM queue WHERE batch_id = ? AND custom_id = ?")) {
      p.setString(1, r.batchId());
      p.setString(2, r.customId());
      p.executeUpdate();
    }
    return written;
  }

  @Override
  public synchronized int drop(String batchId, Function<QueuedLine, LineResult> make) {
    return tx(() -> {
      List<QueuedLine> unclaimed = new ArrayList<>();
      try (PreparedStatement p = db.prepareStatement("SELECT batch_id, custom_id, line, pool, deadline, url, body "
          + "FROM queue WHERE batch_id = ? AND owner IS NULL")) {
        p.setString(1, batchId);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            unclaimed.add(new QueuedLine(r.getString(1), r.getString(2), r.getInt(3), r.getString(4), r.getLong(5),
                r.getString(6), r.getString(7)));
          }
        }
      }
      for (QueuedLine l : unclaimed) {
        writeResult(make.apply(l));
      }
      return unclaimed.size();
    });
  }

  @Override
  public synchronized long remaining(String batchId) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement("SELECT count(*) FROM queue WHERE batch_id = ?")) {
        p.setString(1, batchId);
        try (ResultSet r = p.executeQuery()) {
          return r.next() ? r.getLong(1) : 0L;
        }
      }
    });
  }

  @Override
  public synchronized RequestCounts counts(String batchId, int total) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement("SELECT completed, failed FROM counts WHERE batch_id = ?")) {
        p.setString(1, batchId);
        try (ResultSet r = p.executeQuery()) {
          return r.next() ? new RequestCounts(total, r.getInt(1), r.getInt(2)) : new RequestCounts(total, 0, 0);
        }
      }
    });
  }

  @Override
  public synchronized List<LineResult> results(String batchId) {
    return tx(() -> {
      List<LineResult> out = new ArrayList<>();
      try (PreparedStatement p = db.prepareStatement(
          "SELECT custom_id, line, ok, json FROM results WHERE batch_id = ? ORDER BY line")) {
        p.setString(1, batchId);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            out.add(new LineResult(batchId, r.getString(1), r.getInt(2), r.getInt(3) == 1, r.getString(4)));
          }
        }
      }
      return out;
    });
  }

  @Override
  public synchronized QueueStats stats(String pool) {
    return tx(() -> {
      try (PreparedStatement p = db.prepareStatement(
          "SELECT count(*), coalesce(min(enqueued_at), 0) FROM queue WHERE pool = ?")) {
        p.setString(1, pool);
        try (ResultSet r = p.executeQuery()) {
          r.next();
          return new QueueStats(r.getLong(1), r.getLong(2));
        }
      }
    });
  }

  @Override
  public synchronized List<String> pools() {
    return tx(() -> {
      List<String> out = new ArrayList<>();
      try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT DISTINCT pool FROM queue")) {
        while (r.next()) {
          out.add(r.getString(1));
        }
      }
      return out;
    });
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

  private <T> T tx(Work<T> work) {
    try {
      T out = work.run();
      db.commit();
      return out;
    } catch (SQLException e) {
      try {
        db.rollback();
      } catch (SQLException ignored) {
        // the connection is broken; the next call fails and says so
      }
      throw new IllegalStateException("batch store: " + e.getMessage(), e);
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
