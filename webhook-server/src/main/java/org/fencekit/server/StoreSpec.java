package org.fencekit.server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import org.fencekit.store.OrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * Which store to open, written as one string (the {@code FENCEKIT_STORE} variable):
 *
 * <ul>
 *   <li>{@code sqlite:PATH}: a SQLite file, created if absent;
 *   <li>{@code jdbc:postgresql://HOST:PORT/DATABASE?user=...}: PostgreSQL, tables created if
 *       absent;
 *   <li>{@code redis://HOST:PORT} (or {@code rediss://}): a single Redis node;
 *   <li>{@code redis-cluster:HOST:PORT,HOST:PORT,...}: a Redis Cluster, from any of its nodes.
 * </ul>
 *
 * @param kind which backend
 * @param target the path, URL or node list, as given
 */
public record StoreSpec(Kind kind, String target) {

  /** The backends a spec can name. */
  public enum Kind {
    /** A SQLite file. */
    SQLITE,
    /** A PostgreSQL database. */
    POSTGRES,
    /** A single Redis node. */
    REDIS,
    /** A Redis Cluster. */
    REDIS_CLUSTER
  }

  /** The spec's forms, for messages. */
  public static final String FORMS =
      "sqlite:PATH, jdbc:postgresql://HOST:PORT/DATABASE?user=USER, redis://HOST:PORT or"
          + " redis-cluster:HOST:PORT,HOST:PORT,...";

  /** Checks both parts are present. */
  public StoreSpec {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(target, "target");
  }

  /**
   * Reads a spec.
   *
   * @param variable where the text came from (a variable or option name), for the message
   * @param text the spec
   * @throws IllegalArgumentException naming {@code variable}, the forms, and a good value
   */
  public static StoreSpec parse(String variable, String text) {
    if (text == null || text.isBlank()) {
      throw bad(variable, "is empty");
    }
    String spec = text.trim();
    String lower = spec.toLowerCase(Locale.ROOT);
    if (lower.startsWith("sqlite:")) {
      String path = spec.substring("sqlite:".length());
      if (path.isBlank()) {
        throw bad(variable, "names no file after sqlite:");
      }
      return new StoreSpec(Kind.SQLITE, path);
    }
    if (lower.startsWith("jdbc:postgresql:")) {
      return new StoreSpec(Kind.POSTGRES, spec);
    }
    if (lower.startsWith("redis://") || lower.startsWith("rediss://")) {
      return new StoreSpec(Kind.REDIS, spec);
    }
    if (lower.startsWith("redis-cluster:")) {
      String nodes = spec.substring("redis-cluster:".length());
      if (nodes.isBlank() || !nodes.matches("[^,\\s]+:\\d+(,[^,\\s]+:\\d+)*")) {
        throw bad(variable, "needs HOST:PORT nodes after redis-cluster:, separated by commas");
      }
      return new StoreSpec(Kind.REDIS_CLUSTER, nodes);
    }
    throw bad(variable, "is '" + redacted(spec) + "', which is none of the forms");
  }

  private static IllegalArgumentException bad(String variable, String problem) {
    return new IllegalArgumentException(
        variable
            + " "
            + problem
            + ". It names the order store as one of: "
            + FORMS
            + ". A good value: "
            + variable
            + "=sqlite:fencekit-orders.db");
  }

  /**
   * Opens the store: SQLite and PostgreSQL create their tables if absent.
   *
   * @param clock the clock leases run on
   */
  public OrderStore open(Clock clock) {
    return switch (kind) {
      case SQLITE -> SqliteOrderStore.builder(Path.of(target)).clock(clock).build();
      case POSTGRES ->
          PostgresOrderStore.builder().jdbcUrl(target).createSchema(true).clock(clock).build();
      case REDIS -> RedisOrderStore.builder().url(target).clock(clock).build();
      case REDIS_CLUSTER -> RedisOrderStore.builder().clusterNodes(target).clock(clock).build();
    };
  }

  /** The spec with any password masked, for logs. */
  @Override
  public String toString() {
    return switch (kind) {
      case SQLITE -> "sqlite:" + target;
      case REDIS_CLUSTER -> "redis-cluster:" + target;
      default -> redacted(target);
    };
  }

  /** {@code text} with the password of a URL ({@code user:password@}, {@code password=}) masked. */
  static String redacted(String text) {
    return text.replaceAll("(://[^:/@]*:)[^@/]*@", "$1****@")
        .replaceAll("(?i)(password=)[^&;]*", "$1****");
  }
}
