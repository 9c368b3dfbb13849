package org.fencekit.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * One constant per store configuration the replay and the benchmarks compare. The embedded stores
 * are always available; a server store is available when its environment variable names the server
 * (the same variables the tests read).
 */
public enum StoreType {

  /** The in-memory reference store. */
  MEMORY(null) {
    @Override
    OrderStore open(Clock clock) {
      return new MemoryOrderStore(clock);
    }
  },

  /** SQLite on a fresh temporary file, synchronous=FULL (the default: every commit is on disk). */
  SQLITE(null) {
    @Override
    OrderStore open(Clock clock) {
      return SqliteOrderStore.builder(freshFile()).clock(clock).build();
    }
  },

  /**
   * SQLite on a fresh temporary file, synchronous=NORMAL: WAL commits without an fsync each, so the
   * last commits can be lost on power loss (the store's documented option).
   */
  SQLITE_NORMAL(null) {
    @Override
    OrderStore open(Clock clock) {
      return SqliteOrderStore.builder(freshFile())
          .synchronous(SqliteOrderStore.Synchronous.NORMAL)
          .clock(clock)
          .build();
    }
  },

  /**
   * PostgreSQL at {@code FENCEKIT_POSTGRES_URL} (a JDBC URL), as built by default: the
   * single-statement fast path, falling back to the locking transaction on a miss.
   */
  POSTGRES("FENCEKIT_POSTGRES_URL") {
    @Override
    OrderStore open(Clock clock) {
      return PostgresOrderStore.builder()
          .jdbcUrl(setting())
          .createSchema(true)
          .clock(clock)
          .build();
    }
  },

  /** PostgreSQL at {@code FENCEKIT_POSTGRES_URL}, locking transactions only (no fast path). */
  POSTGRES_LOCKING("FENCEKIT_POSTGRES_URL") {
    @Override
    OrderStore open(Clock clock) {
      return PostgresOrderStore.builder()
          .jdbcUrl(setting())
          .createSchema(true)
          .singleStatementFastPath(false)
          .clock(clock)
          .build();
    }
  },

  /** A single Redis node at {@code FENCEKIT_REDIS_URL} ({@code redis://host:port}). */
  REDIS("FENCEKIT_REDIS_URL") {
    @Override
    OrderStore open(Clock clock) {
      return RedisOrderStore.builder().url(setting()).clock(clock).build();
    }
  },

  /**
   * A Redis Cluster whose seed nodes are {@code FENCEKIT_REDIS_CLUSTER_NODES} ({@code h:p,h:p}).
   */
  REDIS_CLUSTER("FENCEKIT_REDIS_CLUSTER_NODES") {
    @Override
    OrderStore open(Clock clock) {
      return RedisOrderStore.builder().clusterNodes(setting()).clock(clock).build();
    }
  };

  private final String variable;

  StoreType(String variable) {
    this.variable = variable;
  }

  /** A database file in a new temporary directory, for a store that starts empty. */
  static Path freshFile() {
    try {
      Path dir = Files.createTempDirectory("fencekit-bench-");
      dir.toFile().deleteOnExit();
      return dir.resolve("orders.db");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Deletes a file {@link #freshFile()} made, with SQLite's WAL and shared-memory files and its
   * directory.
   */
  static void deleteFresh(Path file) {
    try {
      for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
        Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
      }
      Files.deleteIfExists(file.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete the benchmark database " + file, e);
    }
  }

  /** Opens a store of this type on {@code clock}; the caller closes it. */
  abstract OrderStore open(Clock clock);

  /** Whether the server this type needs is configured. */
  boolean available() {
    return variable == null
        || (System.getenv(variable) != null && !System.getenv(variable).isBlank());
  }

  /** Why this type is left out, for the line that says so. */
  String absence() {
    return name().toLowerCase() + ": left out, " + variable + " is not set";
  }

  String setting() {
    return System.getenv(variable);
  }

  /** A short name for tables. */
  String label() {
    return name().toLowerCase().replace('_', '-');
  }

  /** The type whose {@link #label()} is {@code label}, or null. */
  static StoreType byLabel(String label) {
    for (StoreType type : values()) {
      if (type.label().equals(label)) {
        return type;
      }
    }
    return null;
  }
}
