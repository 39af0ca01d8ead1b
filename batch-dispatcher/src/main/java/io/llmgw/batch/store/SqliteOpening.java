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
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What opening the embedded store takes: the lock file that keeps a second process out, the writing connection in WAL
 * mode with {@code synchronous=FULL} and the schema brought up to date (dead claims released, unpublished pieces
 * removed), and the reading connection.
 */
record SqliteOpening(Connection db, Connection reads, FileChannel lockChannel, FileLock lock) {
  static SqliteOpening open(Path file, String schema) {
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
            + "one process; run several dispatchers on a redis:// store)");
      }
      Connection db = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = db.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("PRAGMA busy_timeout=5000");
        for (String ddl : schema.split(";")) {
          if (!ddl.isBlank()) {
            s.execute(ddl);
          }
        }
        s.executeUpdate("UPDATE queue SET owner = NULL, claim_until = 0 WHERE owner IS NOT NULL");
        SqliteFiles.tidy(s);
        SqliteQueue.migrate(s);
      }
      db.setAutoCommit(false);
      db.commit();
      Connection reads = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = reads.createStatement()) {
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("PRAGMA query_only=1");
      }
      return new SqliteOpening(db, reads, channel, lock);
    } catch (IOException | SQLException e) {
      closeQuietly(channel);
      throw new IllegalStateException("cannot open the batch store " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  static void closeQuietly(FileChannel c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }
  }
}
