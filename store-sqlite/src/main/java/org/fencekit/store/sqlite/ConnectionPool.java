package org.fencekit.store.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * A fixed number of connections to one file. A connection that failed is closed and opened again
 * when next taken, so one bad moment does not poison the pool. Each connection keeps the statements
 * prepared on it ({@link Slot#prepare}) until it is closed: a slot is used by one thread at a time,
 * so its statements are never shared between connections or threads, and a reopened connection
 * prepares fresh ones.
 *
 * <p>The idle connections are a stack: {@link #take} hands out the one given back last. Its page
 * cache is the one most likely still valid; a connection that sat idle while others committed finds
 * its cache stale at its next transaction and reads the pages it needs again. Handed out least
 * recently used first, every write of calls made one at a time paid that.
 */
final class ConnectionPool {

  /** Opens and configures one connection. */
  @FunctionalInterface
  interface Opener {
    /** A new, configured connection. */
    Connection open() throws SQLException;
  }

  /** A place in the pool; its connection is {@code null} until (re)opened. */
  static final class Slot {
    private Connection connection;
    private final Map<String, PreparedStatement> prepared = new HashMap<>();
    private int prepares;
    private int opens;

    /** The slot's open connection. */
    Connection connection() {
      return connection;
    }

    /**
     * The statement for {@code sql} on this slot's connection, prepared on first use and kept until
     * the connection is closed, with its parameters cleared. Only the thread that took the slot may
     * call this and use the statement, and only until it gives the slot back.
     */
    PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement statement = prepared.get(sql);
      if (statement == null) {
        statement = connection.prepareStatement(sql);
        prepared.put(sql, statement);
        prepares++;
      } else {
        statement.clearParameters();
      }
      return statement;
    }

    /** How many statements were prepared on the current connection (for tests). */
    int prepares() {
      return prepares;
    }

    /** How many times a connection was opened in this slot (for tests). */
    int opens() {
      return opens;
    }
  }

  /** Put in the queue once the pool is closed, so every waiter wakes up. */
  private static final Slot CLOSED = new Slot();

  private final LinkedBlockingDeque<Slot> idle = new LinkedBlockingDeque<>();
  private final Opener opener;
  private final String closedMessage;
  private final int size;
  private volatile boolean closed;

  /**
   * @param size how many connections
   * @param opener opens one
   * @param closedMessage the message of the {@link IllegalStateException} thrown once closed
   */
  ConnectionPool(int size, Opener opener, String closedMessage) {
    this.size = size;
    this.opener = opener;
    this.closedMessage = closedMessage;
    for (int i = 0; i < size; i++) {
      idle.add(new Slot());
    }
  }

  /** How many connections the pool holds. */
  int size() {
    return size;
  }

  /**
   * Takes a slot with an open connection, waiting up to {@code timeout} for one to be free.
   *
   * @return the slot, or {@code null} if none was free in time
   * @throws IllegalStateException if the pool is closed
   * @throws SQLException if the connection had to be opened and could not be
   */
  Slot take(Duration timeout) throws InterruptedException, SQLException {
    Slot slot = idle.pollFirst(nanos(timeout), TimeUnit.NANOSECONDS);
    if (slot == null) {
      return null;
    }
    if (slot == CLOSED) {
      idle.addFirst(CLOSED); // for the next waiter
      throw new IllegalStateException(closedMessage);
    }
    if (closed) {
      give(slot, true);
      throw new IllegalStateException(closedMessage);
    }
    if (slot.connection == null) {
      try {
        slot.connection = opener.open();
        slot.opens++;
      } catch (SQLException | RuntimeException e) {
        idle.add(slot);
        throw e;
      }
    }
    return slot;
  }

  /**
   * Returns a slot taken by {@link #take}.
   *
   * @param healthy {@code false} if its connection failed: it is closed and reopened later
   */
  void give(Slot slot, boolean healthy) {
    if (healthy) {
      idle.addFirst(slot); // taken next: see the class comment
    } else {
      closeQuietly(slot);
      idle.addLast(slot);
    }
    if (closed) {
      drainAndClose();
    }
  }

  /** Closes every idle connection now and every busy one when it is given back. Idempotent. */
  void close() {
    closed = true;
    drainAndClose();
  }

  private void drainAndClose() {
    List<Slot> drained = new ArrayList<>();
    idle.drainTo(drained);
    drained.forEach(ConnectionPool::closeQuietly);
    idle.add(CLOSED);
  }

  /** {@code duration} in nanoseconds, saturating instead of overflowing past 292 years. */
  static long nanos(Duration duration) {
    return duration.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
        ? Long.MAX_VALUE
        : duration.toNanos();
  }

  private static void closeQuietly(Slot slot) {
    for (PreparedStatement statement : slot.prepared.values()) {
      try {
        statement.close();
      } catch (SQLException ignored) {
        // the connection is closed next, which releases whatever the statement still held
      }
    }
    slot.prepared.clear();
    slot.prepares = 0;
    if (slot.connection != null) {
      try {
        slot.connection.close();
      } catch (SQLException ignored) {
        // the connection is being discarded; there is nothing left to release
      }
      slot.connection = null;
    }
  }
}
