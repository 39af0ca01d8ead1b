package io.llmgw.batch.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The store's uploaded files: metadata in the {@code files} table, content in {@code file_pieces} (one row per
 * {@link BatchStore#CONTENT_PIECE}). Every method runs inside the store's transaction and lock ({@link SqliteStore}),
 * except {@link #piece}, which runs on the store's reading connection.
 */
final class SqliteFiles {
  static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS files(id TEXT PRIMARY KEY, purpose TEXT NOT NULL, filename TEXT NOT NULL,
        bytes INTEGER NOT NULL, created_at INTEGER NOT NULL, content BLOB NOT NULL, owner TEXT NOT NULL DEFAULT '');
      CREATE TABLE IF NOT EXISTS file_pieces(file_id TEXT NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL,
        PRIMARY KEY(file_id, idx));
      """;

  private final Connection db;

  SqliteFiles(Connection db) {
    this.db = db;
  }

  /**
   * At open: content stored whole by an older version moves into pieces, and pieces of files never published (their
   * writer died) go.
   */
  static void tidy(Statement s) throws SQLException {
    boolean owned;
    try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM pragma_table_info('files') WHERE name = 'owner'")) {
      owned = r.next() && r.getInt(1) == 1;
    }
    if (!owned) { // a store written before tenants: its files belong to no tenant
      s.executeUpdate("ALTER TABLE files ADD COLUMN owner TEXT NOT NULL DEFAULT ''");
    }
    boolean wholeContent;
    try (ResultSet r = s.executeQuery("SELECT EXISTS (SELECT 1 FROM files WHERE length(content) > 0)")) {
      wholeContent = r.next() && r.getInt(1) == 1;
    }
    if (wholeContent) {
      s.executeUpdate("WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 100000) "
          + "INSERT OR REPLACE INTO file_pieces SELECT f.id, k.i, substr(f.content, 1 + k.i * "
          + BatchStore.CONTENT_PIECE + ", " + BatchStore.CONTENT_PIECE + ") FROM files f JOIN k "
          + "ON k.i * " + BatchStore.CONTENT_PIECE + " < length(f.content)");
      s.executeUpdate("UPDATE files SET content = x'' WHERE length(content) > 0");
    }
    s.executeUpdate("DELETE FROM file_pieces WHERE file_id NOT IN (SELECT id FROM files)");
  }

  void putPiece(String fileId, int index, byte[] piece) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("INSERT OR REPLACE INTO file_pieces VALUES (?,?,?)")) {
      p.setString(1, fileId);
      p.setInt(2, index);
      p.setBytes(3, piece);
      p.executeUpdate();
    }
  }

  boolean putFile(StoredFile f) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(
        "INSERT OR IGNORE INTO files(id, purpose, filename, bytes, created_at, content, owner) VALUES (?,?,?,?,?,x'',?)")) {
      p.setString(1, f.id());
      p.setString(2, f.purpose());
      p.setString(3, f.filename());
      p.setLong(4, f.bytes());
      p.setLong(5, f.createdAt());
      p.setString(6, f.owner());
      return p.executeUpdate() == 1;
    }
  }

  Optional<StoredFile> file(String id) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(
        "SELECT id, purpose, filename, bytes, created_at, owner FROM files WHERE id = ?")) {
      p.setString(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? Optional.of(new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getLong(4),
            r.getLong(5), r.getString(6))) : Optional.<StoredFile>empty();
      }
    }
  }

  /** Runs on the reading connection (any connection to the store's file). */
  static Optional<byte[]> piece(Connection reads, String id, int index) throws SQLException {
    try (PreparedStatement p = reads.prepareStatement("SELECT data FROM file_pieces WHERE file_id = ? AND idx = ?")) {
      p.setString(1, id);
      p.setInt(2, index);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? Optional.of(r.getBytes(1)) : Optional.<byte[]>empty();
      }
    }
  }

  List<StoredFile> files() throws SQLException {
    List<StoredFile> out = new ArrayList<>();
    try (Statement st = db.createStatement();
        ResultSet r = st.executeQuery(
            "SELECT id, purpose, filename, bytes, created_at, owner FROM files ORDER BY created_at")) {
      while (r.next()) {
        out.add(new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), r.getLong(5),
            r.getString(6)));
      }
    }
    return out;
  }

  boolean deleteFile(String id) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("DELETE FROM file_pieces WHERE file_id = ?")) {
      p.setString(1, id);
      p.executeUpdate();
    }
    try (PreparedStatement p = db.prepareStatement("DELETE FROM files WHERE id = ?")) {
      p.setString(1, id);
      return p.executeUpdate() == 1;
    }
  }
}
