package io.llmgw.batch.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The queue of batch lines (per pool, earliest deadline first, claimed for a visibility period), their results
 * (written at most once per custom id) and each batch's counts. Every method runs inside the store's transaction and
 * lock ({@link SqliteStore}).
 */
final class SqliteQueue {
  /**
   * A queued line's columns after its body (its claim, its age) are read from indexes that hold them
   * ({@code queue_claimable}, {@code queue_by_age}): a row's body spills into overflow pages that would otherwise be read
   * for every row a claim or the queue's statistics look at, holding the store for seconds once big lines are queued.
   */
  static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS queue(batch_id TEXT NOT NULL, custom_id TEXT NOT NULL, line INTEGER NOT NULL,
        pool TEXT NOT NULL, deadline INTEGER NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
        enqueued_at INTEGER NOT NULL, not_before INTEGER NOT NULL DEFAULT 0, owner TEXT, claim_until INTEGER NOT NULL
        DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(batch_id, custom_id));
      DROP INDEX IF EXISTS queue_by_deadline;
      CREATE INDEX IF NOT EXISTS queue_claimable ON queue(pool, deadline, line, not_before, owner, claim_until);
      CREATE INDEX IF NOT EXISTS queue_by_age ON queue(pool, enqueued_at);
      CREATE TABLE IF NOT EXISTS results(batch_id TEXT NOT NULL, custom_id TEXT NOT NULL, line INTEGER NOT NULL,
        ok INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY(batch_id, custom_id));
      CREATE INDEX IF NOT EXISTS results_by_line ON results(batch_id, line);
      CREATE TABLE IF NOT EXISTS counts(batch_id TEXT PRIMARY KEY, completed INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0);
      """;

  private final Connection db;
  private final SqliteBatches batches;

  SqliteQueue(Connection db, SqliteBatches batches) {
    this.db = db;
    this.batches = batches;
  }

  /** Validation's last step: the results known already, and the batch moved from validating. */
  boolean accept(Batch next, List<LineResult> known) throws SQLException {
    if (!batches.replace(next.id(), BatchStatus.VALIDATING, next)) {
      return false;
    }
    for (LineResult r : known) {
      writeResult(r);
    }
    return true;
  }

  /** Queues lines (again: nothing twice, and not a line that has a result). */
  void enqueue(List<QueuedLine> lines, long now) throws SQLException {
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
  }

  List<Claim> claim(String pool, int max, long maxChars, String owner, long now, long visibilityMillis)
      throws SQLException {
    List<Claim> out = new ArrayList<>();
    long chars = 0;
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
          String body = r.getString(7);
          if (!out.isEmpty() && chars + body.length() > maxChars) {
            break; // one line past the budget is read and let go: the rest of the rows are not
          }
          chars += body.length();
          out.add(new Claim(new QueuedLine(r.getString(1), r.getString(2), r.getInt(3), r.getString(4), r.getLong(5),
              r.getString(6), body), r.getInt(8)));
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
  }

  void extend(List<QueuedLine> lines, String owner, long now, long visibilityMillis) throws SQLException {
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
  }

  void release(QueuedLine l, long notBefore, boolean refundAttempt) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("UPDATE queue SET owner = NULL, claim_until = 0, not_before = ?, "
        + "attempts = max(attempts - ?, 0) WHERE batch_id = ? AND custom_id = ?")) {
      p.setLong(1, notBefore);
      p.setInt(2, refundAttempt ? 1 : 0);
      p.setString(3, l.batchId());
      p.setString(4, l.customId());
      p.executeUpdate();
    }
  }

  boolean finish(LineResult result) throws SQLException {
    return writeResult(result);
  }

  int drop(String batchId, Function<QueuedLine, LineResult> make) throws SQLException {
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
  }

  long remaining(String batchId) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("SELECT count(*) FROM queue WHERE batch_id = ?")) {
      p.setString(1, batchId);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? r.getLong(1) : 0L;
      }
    }
  }

  RequestCounts counts(String batchId, int total) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(
        "SELECT completed, failed, input_tokens, output_tokens FROM counts WHERE batch_id = ?")) {
      p.setString(1, batchId);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? new RequestCounts(total, r.getInt(1), r.getInt(2), r.getLong(3), r.getLong(4))
            : new RequestCounts(total, 0, 0);
      }
    }
  }

  /** At open: a store written before batches reported usage gains its token counts (zero so far). */
  static void migrate(Statement s) throws SQLException {
    try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM pragma_table_info('counts') WHERE name = 'input_tokens'")) {
      if (r.next() && r.getInt(1) == 0) {
        s.executeUpdate("ALTER TABLE counts ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0");
        s.executeUpdate("ALTER TABLE counts ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0");
      }
    }
  }

  /** Up to {@code limit} results of the batch after input line {@code afterLine}, in line order. */
  List<LineResult> results(String batchId, int afterLine, int limit) throws SQLException {
    List<LineResult> out = new ArrayList<>();
    try (PreparedStatement p = db.prepareStatement(
        "SELECT custom_id, line, ok, json FROM results WHERE batch_id = ? AND line > ? ORDER BY line LIMIT ?")) {
      p.setString(1, batchId);
      p.setInt(2, afterLine);
      p.setInt(3, limit);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          out.add(new LineResult(batchId, r.getString(1), r.getInt(2), r.getInt(3) == 1, r.getString(4)));
        }
      }
    }
    return out;
  }

  QueueStats stats(String pool) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(
        "SELECT count(*), coalesce(min(enqueued_at), 0) FROM queue WHERE pool = ?")) {
      p.setString(1, pool);
      try (ResultSet r = p.executeQuery()) {
        r.next();
        return new QueueStats(r.getLong(1), r.getLong(2));
      }
    }
  }

  List<String> pools() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT DISTINCT pool FROM queue")) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    }
    return out;
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
          ? "UPDATE counts SET completed = completed + 1, input_tokens = input_tokens + ?, output_tokens = "
              + "output_tokens + ? WHERE batch_id = ?"
          : "UPDATE counts SET failed = failed + 1, input_tokens = input_tokens + ?, output_tokens = "
              + "output_tokens + ? WHERE batch_id = ?")) {
        p.setLong(1, r.inputTokens());
        p.setLong(2, r.outputTokens());
        p.setString(3, r.batchId());
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
}
