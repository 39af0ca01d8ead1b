package io.llmgw.batch.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The embedded store's transactions on its one writing connection: each piece of work commits or rolls back whole,
 * and the last write's failure is remembered for readiness. Callers hold the store's lock.
 */
final class SqliteTransactions {
  interface Work<T> {
    T run() throws SQLException;
  }

  private final Connection db;
  private volatile String writeFailure;

  SqliteTransactions(Connection db) {
    this.db = db;
  }

  /** Why the last write failed, or null after a write that succeeded. */
  String writeFailure() {
    return writeFailure;
  }

  /** A transaction that writes: its failure or success is what {@link #writeFailure} reports. */
  <T> T write(Work<T> work) {
    try {
      T out = read(work);
      writeFailure = null;
      return out;
    } catch (IllegalStateException e) {
      writeFailure = e.getMessage();
      throw e;
    }
  }

  /** A transaction whose failure says nothing about the disk (a read, or a step that only may write). */
  <T> T read(Work<T> work) {
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
}
