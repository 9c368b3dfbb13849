package org.fencekit.store.jdbc;

import java.sql.SQLException;

/**
 * Carries a {@link SQLException} out of work that runs inside an atomic step and cannot throw it;
 * the storage unwraps it and reports the failure.
 */
public final class JdbcFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Wraps {@code cause}. */
  public JdbcFailure(SQLException cause) {
    super(cause);
  }

  /** The statement's failure. */
  @Override
  public synchronized SQLException getCause() {
    return (SQLException) super.getCause();
  }
}
