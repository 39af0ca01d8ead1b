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
 * The store's uploaded files: metadata and content, in the {@code files} table. Every method runs inside the store's
 * transaction and lock ({@link SqliteStore}).
 */
final class SqliteFiles {
  private final Connection db;

  SqliteFiles(Connection db) {
    this.db = db;
  }

  boolean putFile(StoredFile f, byte[] content) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("INSERT OR IGNORE INTO files VALUES (?,?,?,?,?,?)")) {
      p.setString(1, f.id());
      p.setString(2, f.purpose());
      p.setString(3, f.filename());
      p.setLong(4, f.bytes());
      p.setLong(5, f.createdAt());
      p.setBytes(6, content);
      return p.executeUpdate() == 1;
    }
  }

  Optional<StoredFile> file(String id) throws SQLException {
    try (PreparedStatement p = db.prepareStatement(
        "SELECT id, purpose, filename, bytes, created_at FROM files WHERE id = ?")) {
      p.setString(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? Optional.of(new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getLong(4),
            r.getLong(5))) : Optional.<StoredFile>empty();
      }
    }
  }

  Optional<byte[]> content(String id) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("SELECT content FROM files WHERE id = ?")) {
      p.setString(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? Optional.of(r.getBytes(1)) : Optional.<byte[]>empty();
      }
    }
  }

  List<StoredFile> files() throws SQLException {
    List<StoredFile> out = new ArrayList<>();
    try (Statement st = db.createStatement();
        ResultSet r = st.executeQuery(
            "SELECT id, purpose, filename, bytes, created_at FROM files ORDER BY created_at")) {
      while (r.next()) {
        out.add(new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), r.getLong(5)));
      }
    }
    return out;
  }

  boolean deleteFile(String id) throws SQLException {
    try (PreparedStatement p = db.prepareStatement("DELETE FROM files WHERE id = ?")) {
      p.setString(1, id);
      return p.executeUpdate() == 1;
    }
  }
}
