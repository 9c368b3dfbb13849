package org.fencekit.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a claim + complete costs PostgreSQL, beside its raw baseline, its floor and ShedLock's lock
 * + unlock ({@link CostProbe}): in a database of its own ({@code fencekit_cost_<8 hex>}, dropped at
 * the end) on the server at {@code --url}, each subject in a schema of its own, one thread. Per
 * operation:
 *
 * <ul>
 *   <li>statements and executor time: {@code pg_stat_statements} (calls and total_exec_time in the
 *       database), when the server loads it ({@code shared_preload_libraries});
 *   <li>WAL bytes: {@code pg_current_wal_insert_lsn()} before and after (the whole server's);
 *   <li>inserts, updates, HOT updates: {@code pg_stat_user_tables} of the subject's table;
 *   <li>server CPU: the database's backends' utime + stime, from {@code /proc} (NaN if the server
 *       runs on another machine).
 * </ul>
 *
 * The probe reads them on a connection of its own in that database, inside one transaction it never
 * commits (so that its reads add no transaction), and waits after each turn until the backends have
 * published their statistics (PostgreSQL flushes them when a backend goes idle, within a second or
 * so). The WAL and CPU figures are only the subjects' on a server nothing else uses.
 *
 * <pre>
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.PostgresCost \
 *   --url 'jdbc:postgresql://127.0.0.1:PORT/test?user=postgres' --orders 2000 --runs 5
 * </pre>
 */
public final class PostgresCost {

  static final String STATEMENTS = "statements";
  static final String EXECUTOR = "executor (µs)";
  static final String WAL = "WAL (B)";
  static final String INSERTS = "inserts";
  static final String UPDATES = "updates";
  static final String HOT = "HOT updates";

  /** Marks the probe's own queries, which the statement counts leave out. */
  private static final String MARK = "/* fencekit-cost-probe */ ";

  private PostgresCost() {}

  /** Runs the probe; {@code --help} lists the options. */
  public static void main(String[] args) {
    System.exit(
        CostCommand.run(
            "java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.PostgresCost",
            "What a claim + complete costs PostgreSQL beside its raw baseline, its floor and"
                + " ShedLock JDBC's lock + unlock, per operation, from the server's side.",
            PostgresCost::measure,
            args,
            System.out));
  }

  /**
   * Measures on the server at {@code url} ({@code runs} runs of {@code orders} fresh orders per
   * subject) in a database of its own, which it drops at the end.
   */
  static CostProbe.Result measure(String url, int orders, int runs) {
    String database = "fencekit_cost_" + Namespace.newId();
    admin(url, "CREATE DATABASE " + database);
    try {
      return measureIn(Namespace.withDatabase(url, database), orders, runs);
    } finally {
      admin(url, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  private static CostProbe.Result measureIn(String url, int orders, int runs) {
    Map<String, String> env = Map.of(Server.POSTGRES.variable(), url);
    Clock clock = Clock.systemUTC();
    try (CostProbe.Opened opened = new CostProbe.Opened();
        Connection probe = DriverManager.getConnection(url)) {
      boolean statements = statementsTracked(probe);
      Namespace ds = Namespace.fresh();
      opened.add(
          CostProbe.store(
              CostProbe.FENCEKIT_DATASOURCE,
              orders(ds),
              StoreType.POSTGRES_DATASOURCE.open(clock, ds, env, 1)));
      Namespace built = Namespace.fresh();
      opened.add(
          CostProbe.store(
              CostProbe.FENCEKIT_URL,
              orders(built),
              StoreType.POSTGRES.open(clock, built, env, 1)));
      Namespace raw = Namespace.fresh();
      opened.add(CostProbe.raw(orders(raw), RawJdbc.postgres(url, raw, true)));
      opened.add(floor(url, false));
      opened.add(floor(url, true));
      Namespace shed = Namespace.fresh();
      opened.add(
          CostProbe.peer(
              CostProbe.SHEDLOCK,
              shed.schema() + ".shedlock",
              Peer.SHEDLOCK_JDBC.open(shed, env, 1)));
      return CostProbe.measure(
          "PostgreSQL "
              + version(probe)
              + ", one thread, claim + complete (ShedLock: lock + unlock)",
          opened.list(),
          new Meter(probe, statements),
          orders,
          runs);
    } catch (SQLException e) {
      throw new IllegalStateException("the PostgreSQL cost probe failed: " + e.getMessage(), e);
    }
  }

  /** The floor, or the indexed floor, in a schema of its own. */
  private static CostProbe.Subject floor(String url, boolean indexed) throws SQLException {
    Namespace namespace = Namespace.fresh();
    admin(url, "CREATE SCHEMA " + namespace.schema());
    Connection connection = DriverManager.getConnection(inSchema(url, namespace));
    return CostProbe.floor(
        indexed ? CostProbe.INDEXED_FLOOR : CostProbe.FLOOR,
        namespace.schema() + ".floor_orders",
        indexed ? SqlFloor.postgresIndexed(connection) : SqlFloor.postgres(connection));
  }

  private static String orders(Namespace namespace) {
    return namespace.schema() + ".fencekit_orders";
  }

  private static String inSchema(String url, Namespace namespace) {
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + namespace.schema();
  }

  /** Whether pg_stat_statements counts here: loaded at start, its view created in the database. */
  private static boolean statementsTracked(Connection probe) throws SQLException {
    try (Statement s = probe.createStatement()) {
      try (ResultSet loaded =
          s.executeQuery(
              MARK
                  + "SELECT current_setting('shared_preload_libraries')"
                  + " LIKE '%pg_stat_statements%'")) {
        loaded.next();
        if (!loaded.getBoolean(1)) {
          return false;
        }
      }
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      return true;
    }
  }

  private static String version(Connection probe) throws SQLException {
    return probe.getMetaData().getDatabaseProductVersion();
  }

  /** Runs one statement on a connection of its own, in auto-commit. */
  private static void admin(String url, String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not run '" + sql + "' on PostgreSQL: " + e.getMessage(), e);
    }
  }

  /**
   * The server's counters, read on the probe's connection, each read in a transaction of its own.
   */
  private record Meter(Connection probe, boolean statements) implements CostProbe.Meter {

    /** How long the probe waits for the backends to publish their statistics. */
    private static final long SETTLE_MILLIS = 90_000;

    /** Longer than an idle backend's wait before it flushes statistics it held back (10 s). */
    private static final long IDLE_FLUSH_MILLIS = 10_500;

    @Override
    public Turn begin(CostProbe.Subject subject) {
      List<Long> backends = backends();
      return CostProbe.Meter.difference(() -> immediate(backends));
    }

    /**
     * Waits until every subject's table statistics are published: at least two writes per operation
     * (every subject's least), and no change over {@link #IDLE_FLUSH_MILLIS} (an idle backend that
     * flushed less than a second before flushes again only after 10 s).
     */
    @Override
    public Map<String, Map<String, Double>> settled(
        List<CostProbe.Subject> subjects, long operationsEach) {
      long deadline = System.currentTimeMillis() + SETTLE_MILLIS;
      Map<String, Map<String, Double>> last = null;
      while (true) {
        Map<String, Map<String, Double>> now = new LinkedHashMap<>();
        boolean written = true;
        for (CostProbe.Subject subject : subjects) {
          Map<String, Double> table = published(subject);
          now.put(subject.name(), table);
          written &= table.get(INSERTS) + table.get(UPDATES) >= 2.0 * operationsEach;
        }
        if (written && now.equals(last)) {
          return now;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              "PostgreSQL did not publish the subjects' table statistics within "
                  + SETTLE_MILLIS
                  + " ms after "
                  + operationsEach
                  + " operations each: "
                  + now
                  + "; is track_counts off?");
        }
        last = now;
        sleep(IDLE_FLUSH_MILLIS);
      }
    }

    /** Counters that move as the statements run. */
    private Map<String, Double> immediate(List<Long> backends) {
      Map<String, Double> values = new LinkedHashMap<>();
      StringBuilder query =
          new StringBuilder(MARK + "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')");
      if (statements) {
        query.append(
            ", (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s"
                + " WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND s.query NOT LIKE '%fencekit-cost-probe%')"
                + ", (SELECT coalesce(sum(total_exec_time), 0) FROM pg_stat_statements s"
                + " WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND s.query NOT LIKE '%fencekit-cost-probe%')");
      }
      try (Statement s = probe.createStatement();
          ResultSet row = s.executeQuery(query.toString())) {
        row.next();
        values.put(STATEMENTS, statements ? row.getDouble(2) : Double.NaN);
        values.put(EXECUTOR, statements ? row.getDouble(3) * 1_000 : Double.NaN);
        values.put(WAL, row.getDouble(1));
      } catch (SQLException e) {
        throw failed("the WAL position and statement counts", e);
      }
      values.put(CostProbe.SERVER_CPU, CostProbe.processCpuMicros(backends));
      return values;
    }

    /** The subject's table's counters, which its backend publishes when it goes idle. */
    private Map<String, Double> published(CostProbe.Subject subject) {
      String[] table = subject.table().split("\\.");
      try (PreparedStatement s =
          probe.prepareStatement(
              MARK
                  + "SELECT t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd"
                  + " FROM pg_stat_user_tables t WHERE t.schemaname = ? AND t.relname = ?")) {
        s.setString(1, table[0]);
        s.setString(2, table[1]);
        try (ResultSet row = s.executeQuery()) {
          if (!row.next()) {
            throw new IllegalStateException(
                "no statistics for " + subject.table() + ", " + subject.name() + "'s table");
          }
          Map<String, Double> values = new LinkedHashMap<>();
          values.put(INSERTS, row.getDouble(1));
          values.put(UPDATES, row.getDouble(2));
          values.put(HOT, row.getDouble(3));
          return values;
        }
      } catch (SQLException e) {
        throw failed("the table statistics of " + subject.table(), e);
      }
    }

    /** The process ids of the database's client backends but the probe's. */
    private List<Long> backends() {
      try (Statement s = probe.createStatement();
          ResultSet rows =
              s.executeQuery(
                  MARK
                      + "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                      + " AND backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
        List<Long> pids = new ArrayList<>();
        while (rows.next()) {
          pids.add(rows.getLong(1));
        }
        return pids;
      } catch (SQLException e) {
        throw failed("the backends' process ids", e);
      }
    }

    private static IllegalStateException failed(String what, SQLException e) {
      return new IllegalStateException(
          "the PostgreSQL cost probe could not read " + what + ": " + e.getMessage(), e);
    }

    private static void sleep(long millis) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for PostgreSQL's statistics", e);
      }
    }
  }
}
