package org.fencekit.bench;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A server the main job and the benchmarks can use, found through the environment variable the
 * tests read too. A value is checked before anything connects: a malformed one is an error that
 * names the variable and shows a good value, and never repeats a password.
 */
enum Server {

  /** PostgreSQL, as a JDBC URL. */
  POSTGRES(
      "FENCEKIT_POSTGRES_URL",
      "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
      "a PostgreSQL JDBC URL",
      "jdbc:postgresql://"),

  /**
   * MySQL or MariaDB, as a JDBC URL naming a database the user may create databases beside ({@code
   * jdbc:mariadb://} is read as {@code jdbc:mysql://}, as the store reads it).
   */
  MYSQL(
      "FENCEKIT_MYSQL_URL",
      "jdbc:mysql://127.0.0.1:3306/test?user=root",
      "a MySQL JDBC URL",
      "jdbc:mysql://",
      "jdbc:mariadb://"),

  /** A single Redis node, as a redis:// or rediss:// URL. */
  REDIS("FENCEKIT_REDIS_URL", "redis://127.0.0.1:6379", "a Redis URL", "redis://", "rediss://"),

  /** A Redis Cluster, as a comma-separated list of seed nodes. */
  REDIS_CLUSTER(
      "FENCEKIT_REDIS_CLUSTER_NODES",
      "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003",
      "a list of host:port seed nodes") {
    @Override
    String problem(String value) {
      return listProblem(value, "", " (a URL or a password does not belong here)");
    }
  },

  /** An etcd cluster, as its members' client URLs separated by commas. */
  ETCD(
      "FENCEKIT_ETCD_ENDPOINTS",
      "http://127.0.0.1:2379,http://127.0.0.1:2381,http://127.0.0.1:2383",
      "a list of http://host:port members") {
    @Override
    String problem(String value) {
      return listProblem(value, "http://", "");
    }
  };

  /**
   * What is wrong with a list of {@code scheme + host:port} entries separated by commas, or null;
   * {@code hint} ends the message.
   */
  String listProblem(String value, String scheme, String hint) {
    String[] entries = value.split(",", -1);
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i].trim();
      String node = entry.startsWith(scheme) ? entry.substring(scheme.length()) : "";
      int colon = node.lastIndexOf(':');
      String host = colon <= 0 ? "" : node.substring(0, colon);
      if (host.isEmpty()
          || !host.chars().allMatch(c -> Character.isLetterOrDigit(c) || ".-_[]:".indexOf(c) >= 0)
          || !isPort(node.substring(colon + 1))) {
        return "is not %s: entry %s%s%s"
            .formatted(
                form, i + 1, entry.contains("@") ? " holds an '@'" : " is '" + entry + "'", hint);
      }
    }
    return null;
  }

  /**
   * The environment the benchmarks' JMH states read: the process's, unless {@link Main} set one.
   */
  private static volatile Map<String, String> environment = System.getenv();

  private final String variable;
  private final String example;
  final String form; // not private: listProblem() names it too
  private final List<String> schemes;

  /**
   * @param form what a value is, for the error message: {@code a Redis URL}
   * @param schemes the URL schemes a value may start with (none for the cluster's node list)
   */
  Server(String variable, String example, String form, String... schemes) {
    this.variable = variable;
    this.example = example;
    this.form = form;
    this.schemes = List.of(schemes);
  }

  /**
   * The environment the benchmark states read ({@link BackendState}, {@link RawBaselineBenchmark}):
   * the process's, or the one {@link Main#run} was given while it runs. A JMH fork is a new process
   * and reads its own, inherited from the process that started it.
   */
  static Map<String, String> environment() {
    return environment;
  }

  /** Makes {@link #environment()} answer {@code env} (null: the process's again). */
  static void useEnvironment(Map<String, String> env) {
    environment = env == null ? System.getenv() : env;
  }

  /** The environment variable that names this server. */
  String variable() {
    return variable;
  }

  /** A good value of {@link #variable()}: the one that reaches the server CI starts. */
  String example() {
    return example;
  }

  /**
   * This server's setting in {@code env}: empty when the variable is unset or blank.
   *
   * @throws IllegalArgumentException if it is set but malformed; the message names the variable,
   *     says what is wrong and shows a good value
   */
  Optional<String> lookup(Map<String, String> env) {
    String value = env.get(variable);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    String problem = problem(value.trim());
    if (problem != null) {
      throw new IllegalArgumentException(
          variable + " " + problem + ". A good value: " + variable + "=" + example);
    }
    return Optional.of(value.trim());
  }

  /**
   * What is wrong with {@code value}, without repeating any secret it holds, or null: a URL must
   * start with one of this server's schemes and name a host.
   */
  String problem(String value) {
    if (schemes.stream().noneMatch(value::startsWith)) {
      return "is not %s: it must start with %s, and this one starts with %s"
          .formatted(form, String.join(" or ", schemes), start(value));
    }
    try {
      // a JDBC URL's host is that of the URL after "jdbc:"
      URI uri = new URI(value.startsWith("jdbc:") ? value.substring("jdbc:".length()) : value);
      if (uri.getHost() == null || uri.getHost().isEmpty()) {
        return "has no host: it must look like scheme://host:port/...";
      }
      return null;
    } catch (URISyntaxException e) {
      return "is not a valid URL (" + e.getReason() + " at index " + e.getIndex() + ")";
    }
  }

  private static boolean isPort(String text) {
    if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit)) {
      return false;
    }
    int port = Integer.parseInt(text);
    return port >= 1 && port <= 65535;
  }

  /** How a value begins, up to its first ':' (never far enough to show credentials). */
  private static String start(String value) {
    int colon = value.indexOf(':');
    if (colon < 0) {
      return "no scheme at all (a value of " + value.length() + " characters and no ':')";
    }
    String scheme = value.substring(0, colon + 1);
    return "'" + (scheme.length() > 20 ? scheme.substring(0, 20) + "..." : scheme) + "'";
  }
}
