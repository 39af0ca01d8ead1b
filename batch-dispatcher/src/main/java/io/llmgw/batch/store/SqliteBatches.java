package io.llmgw.batch.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Batch documents in the {@code batches} table, each changed only from the status it was read in; deleting a batch
 * takes its queue, results and counts along. Every method runs inside the store's transaction and lock ({@link
 * SqliteStore}).
 */
final class SqliteBatches {
  static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS batches(seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL, doc TEXT NOT NULL);
      """;

  private final Connection db;

  SqliteBatches(Connection db) {
    this.db = db;
  }

  void deleteBatch(String id) throws SQLException {
    for (String table : List.of("batches", "queue", "results", "counts")) {
      try (PreparedStatement p = db.prepareStatement("DELETE FROM " + table + " WHERE "
          + (table.equals("batches") ? "id" : "batch_id") + " = ?")) {
        p.setString(1, id);
        p.executeUpdate();
      }
    }
  }

  void createBatch(Batch b) throws SQLException {
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
  }

  Optional<Batch> batch(String id) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("SELECT doc FROM batches WHERE id = ?")) {
      p.setString(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? Optional.of(BatchJsonCodec.read(r.getString(1), Batch.class)) : Optional.<Batch>empty();
      }
    }
  }

  List<Batch> batches(String after, int limit) throws SQLException {
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
  }

  List<String> batchIds(List<BatchStatus> statuses) throws SQLException {
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
  }

  boolean transition(String id, BatchStatus from, Batch next) throws SQLException {
    return replace(id, from, next);
  }

  boolean replace(String id, BatchStatus from, Batch next) throws SQLException {
    try (PreparedStatement p = db
        .prepareStatement("UPDATE batches SET status = ?, doc = ? WHERE id = ? AND status = ?")) {
      p.setString(1, next.status().name());
      p.setString(2, BatchJsonCodec.write(next));
      p.setString(3, id);
      p.setString(4, from.name());
      return p.executeUpdate() == 1;
    }
  }
}
