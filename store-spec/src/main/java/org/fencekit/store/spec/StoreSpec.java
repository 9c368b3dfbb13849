package org.fencekit.store.spec;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.fencekit.store.OrderStore;
import org.fencekit.store.etcd.EtcdOrderStore;
import org.fencekit.store.mysql.MysqlOrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * Which store to open, written as one string: the webhook server's {@code FENCEKIT_STORE} and the
 * admin command's {@code --store} take the same forms.
 *
 * <ul>
 *   <li>{@code sqlite:PATH}: a SQLite file;
 *   <li>{@code jdbc:postgresql://HOST:PORT/DATABASE?user=...}: PostgreSQL;
 *   <li>{@code jdbc:mysql://HOST:PORT/DATABASE?user=...} (or {@code jdbc:mariadb:}): MySQL or
 *       MariaDB;
 *   <li>{@code redis://[USER:PASSWORD@]HOST:PORT} (or {@code rediss://}): a single Redis node;
 *   <li>{@code redis-cluster:HOST:PORT,HOST:PORT,...}: a Redis Cluster, from any of its nodes;
 *   <li>{@code etcd://HOST:PORT,HOST:PORT,...[/KEY_PREFIX]}: an etcd cluster, by its members'
 *       client URLs (plain HTTP), with the key prefix it names or the one {@link #open} is given.
 * </ul>
 *
 * <p>{@link #toString()} and {@link #redact(String)} never show a password: neither the user info
 * of a URL ({@code user:password@}) nor a {@code password=} parameter. {@link #parse} checks the
 * form only; whether the store answers is for {@link #open} to find out.
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
    /** A MySQL or MariaDB database. */
    MYSQL,
    /** A single Redis node. */
    REDIS,
    /** A Redis Cluster. */
    REDIS_CLUSTER,
    /** An etcd cluster. */
    ETCD
  }

  /** The spec's forms, for messages. */
  public static final String FORMS =
      "sqlite:PATH, jdbc:postgresql://HOST:PORT/DATABASE?user=USER,"
          + " jdbc:mysql://HOST:PORT/DATABASE?user=USER (or jdbc:mariadb:), redis://HOST:PORT,"
          + " redis-cluster:HOST:PORT,HOST:PORT,... or etcd://HOST:PORT,HOST:PORT,...[/KEY_PREFIX]";

  private static final Pattern NODES =
      Pattern.compile("[^,\\s:@/]+:\\d{1,5}(,[^,\\s:@/]+:\\d{1,5})*");

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
   * @throws IllegalArgumentException naming {@code variable}, the forms, and a good value; the
   *     message never holds the text's password
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
    if (lower.startsWith("jdbc:mysql:") || lower.startsWith("jdbc:mariadb:")) {
      return new StoreSpec(Kind.MYSQL, spec);
    }
    if (lower.startsWith("redis://") || lower.startsWith("rediss://")) {
      return new StoreSpec(Kind.REDIS, spec);
    }
    if (lower.startsWith("redis-cluster:")) {
      String nodes = spec.substring("redis-cluster:".length());
      if (nodes.isBlank() || !NODES.matcher(nodes).matches()) {
        // a node list has no user info: a value with '@' is not echoed, it may hold a password
        throw bad(
            variable,
            (nodes.indexOf('@') >= 0
                    ? "has user info (USER:PASSWORD@, not shown here), but"
                    : "is '" + spec + "', but")
                + " needs HOST:PORT nodes after redis-cluster:, separated by commas (a Cluster"
                + " that needs a password takes a client of your own: RedisOrderStore.builder()"
                + ".client(...))");
      }
      return new StoreSpec(Kind.REDIS_CLUSTER, nodes);
    }
    if (lower.startsWith("etcd://")) {
      String rest = spec.substring("etcd://".length());
      int slash = rest.indexOf('/');
      String members = slash < 0 ? rest : rest.substring(0, slash);
      if (!NODES.matcher(members).matches()) {
        throw bad(
            variable,
            (members.indexOf('@') >= 0
                    ? "has user info (USER:PASSWORD@, not shown here), but"
                    : "is '" + spec + "', but")
                + " needs the members' HOST:PORT after etcd://, separated by commas (an etcd that"
                + " needs a password or TLS is not supported yet)");
      }
      return new StoreSpec(Kind.ETCD, spec);
    }
    throw bad(variable, "is '" + redacted(spec) + "', which is none of the forms");
  }

  private static IllegalArgumentException bad(String variable, String problem) {
    return new IllegalArgumentException(
        "%s %s. It names the order store as one of: %s. A good value: %s=sqlite:fencekit-orders.db"
            .formatted(variable, problem, FORMS, variable));
  }

  /**
   * Opens the store, creating its tables if absent (SQLite, PostgreSQL, MySQL), with the default
   * key prefix on Redis: what the webhook server does.
   *
   * @param clock the clock leases run on
   * @throws IllegalArgumentException if the target is malformed (a bad URL, a missing directory)
   * @throws org.fencekit.store.StoreUnavailableException if the store does not answer
   */
  public OrderStore open(Clock clock) {
    return open(clock, true, DEFAULT_KEY_PREFIX);
  }

  /** The Redis and etcd key prefix the stores use unless told otherwise. */
  public static final String DEFAULT_KEY_PREFIX = "fencekit:";

  /**
   * Opens the store.
   *
   * @param clock the clock leases run on
   * @param createSchema whether a SQL store may create its tables or upgrade an older schema, and a
   *     Redis store upgrade keys of an older layout (else it refuses to open, naming what to run)
   * @param keyPrefix the prefix of a Redis store's keys, and an etcd store's unless its URL names
   *     one (ignored by the SQL stores)
   * @throws IllegalArgumentException if the target is malformed (a bad URL, a missing directory)
   * @throws org.fencekit.store.StoreUnavailableException if the store does not answer; except a
   *     PostgreSQL or MySQL store without {@code createSchema}, which is built all the same and
   *     checks its schema at its first call instead (so a server that starts later is used): that
   *     call throws it, after waiting its connection timeout once more (a program that runs once
   *     opens with {@code requireServer} instead)
   * @throws IllegalStateException if the store refuses what it finds (tables of another shape)
   */
  public OrderStore open(Clock clock, boolean createSchema, String keyPrefix) {
    return open(clock, createSchema, false, keyPrefix);
  }

  /**
   * Opens the store as {@link #open(Clock, boolean, String)} does, but with {@code requireServer} a
   * PostgreSQL or MySQL store without {@code createSchema} whose server does not answer is not
   * built ({@code requireServerAtBuild} of their builders): it throws {@link
   * org.fencekit.store.StoreUnavailableException} after one connection timeout, where the store
   * built all the same would wait a second one at its first call. For a program that runs once and
   * exits, such as the admin command; no other store is affected.
   */
  public OrderStore open(
      Clock clock, boolean createSchema, boolean requireServer, String keyPrefix) {
    return switch (kind) {
      case SQLITE ->
          SqliteOrderStore.builder(Path.of(target)).createSchema(createSchema).clock(clock).build();
      case POSTGRES ->
          PostgresOrderStore.builder()
              .jdbcUrl(target)
              .createSchema(createSchema)
              .requireServerAtBuild(requireServer)
              .clock(clock)
              .build();
      case MYSQL ->
          MysqlOrderStore.builder()
              .jdbcUrl(target)
              .createSchema(createSchema)
              .requireServerAtBuild(requireServer)
              .clock(clock)
              .build();
      case REDIS, REDIS_CLUSTER ->
          (kind == Kind.REDIS
                  ? RedisOrderStore.builder().url(target)
                  : RedisOrderStore.builder().clusterNodes(target))
              .keyPrefix(keyPrefix)
              .upgradeLayout(createSchema)
              .clock(clock)
              .build();
      case ETCD -> {
        EtcdOrderStore.Builder etcd = EtcdOrderStore.builder().url(target).clock(clock);
        // the URL's key prefix, if it names one, else the one given
        yield (target.indexOf('/', "etcd://".length()) < 0 ? etcd.keyPrefix(keyPrefix) : etcd)
            .build();
      }
    };
  }

  /** The spec with any password masked, for logs and messages. */
  @Override
  public String toString() {
    return switch (kind) {
      case SQLITE -> "sqlite:" + target;
      case REDIS_CLUSTER -> "redis-cluster:" + target;
      default -> redacted(target);
    };
  }

  /**
   * {@code text} (a message, a stack trace line) with this spec's password masked wherever it
   * appears, raw or percent-decoded, and any URL user info password or {@code password=} parameter
   * masked too.
   */
  public String redact(String text) {
    return Credentials.of(target).mask(text);
  }

  /**
   * {@code text} with every URL's user info password ({@code user:password@}) and every {@code
   * password=} parameter masked.
   */
  public static String redacted(String text) {
    return Credentials.maskPatterns(text);
  }
}
