package org.fencekit.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a claim + complete costs MySQL or MariaDB, beside its raw baseline, its floor and ShedLock's
 * lock + unlock ({@link CostProbe}): each subject in a database of its own ({@link Namespace},
 * dropped at the end) on the server at {@code --url}, one thread. Per operation, from {@code SHOW
 * GLOBAL STATUS} before and after each turn (the server's counters, so the figures are the
 * subjects' only on a server nothing else uses):
 *
 * <ul>
 *   <li>statements: {@code Questions}, less the probe's own reads;
 *   <li>rows written and updated, index lookups: {@code Handler_write}, {@code Handler_update},
 *       {@code Handler_read_key};
 *   <li>redo bytes: {@code Innodb_lsn_current} (MariaDB; NaN where it is missing);
 *   <li>server CPU: the server process's utime + stime from {@code /proc}, found through its pid
 *       file (NaN if the server runs on another machine).
 * </ul>
 *
 * <pre>
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.MysqlCost \
 *   --url 'jdbc:mysql://127.0.0.1:PORT/test?user=root' --orders 2000 --runs 5
 * </pre>
 */
public final class MysqlCost {

  static final String STATEMENTS = "statements";
  static final String WRITES = "rows written";
  static final String UPDATES = "rows updated";
  static final String LOOKUPS = "index lookups";
  static final String REDO = "redo (B)";

  /** The status variables read, and the figure each gives. */
  private static final Map<String, String> STATUS =
      Map.of(
          "Questions", STATEMENTS,
          "Handler_write", WRITES,
          "Handler_update", UPDATES,
          "Handler_read_key", LOOKUPS,
          "Innodb_lsn_current", REDO);

  private MysqlCost() {}

  /** Runs the probe; {@code --help} lists the options. */
  public static void main(String[] args) {
    System.exit(
        CostCommand.run(
            "java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.MysqlCost",
            "What a claim + complete costs MySQL or MariaDB beside its raw baseline, its floor and"
                + " ShedLock JDBC's lock + unlock, per operation, from the server's side.",
            MysqlCost::measure,
            args,
            System.out));
  }

  /**
   * Measures on the server at {@code url} ({@code runs} runs of {@code orders} fresh orders per
   * subject), each subject in a database of its own, dropped at the end.
   */
  static CostProbe.Result measure(String url, int orders, int runs) {
    String driverUrl = Namespace.mysqlDriverUrl(url);
    Map<String, String> env = Map.of(Server.MYSQL.variable(), driverUrl);
    Clock clock = Clock.systemUTC();
    List<Namespace> namespaces =
        List.of(
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh());
    try (CostProbe.Opened opened = new CostProbe.Opened();
        Connection probe = DriverManager.getConnection(driverUrl)) {
      opened.add(
          CostProbe.store(
              CostProbe.FENCEKIT_DATASOURCE,
              null,
              StoreType.MYSQL_DATASOURCE.open(clock, namespaces.get(0), env, 1)));
      opened.add(
          CostProbe.store(
              CostProbe.FENCEKIT_URL,
              null,
              StoreType.MYSQL.open(clock, namespaces.get(1), env, 1)));
      opened.add(CostProbe.raw(null, RawJdbc.mysql(driverUrl, namespaces.get(2))));
      Connection floorConnection =
          DriverManager.getConnection(namespaces.get(3).mysqlDatabase(driverUrl));
      floorConnection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      opened.add(CostProbe.floor(CostProbe.FLOOR, null, SqlFloor.mysql(floorConnection)));
      opened.add(
          CostProbe.peer(
              CostProbe.SHEDLOCK, null, Peer.SHEDLOCK_JDBC_MYSQL.open(namespaces.get(4), env, 1)));
      return CostProbe.measure(
          probe.getMetaData().getDatabaseProductName()
              + " "
              + probe.getMetaData().getDatabaseProductVersion()
              + ", one thread, claim + complete (ShedLock: lock + unlock)",
          opened.list(),
          new Meter(probe, serverPid(probe)),
          orders,
          runs);
    } catch (SQLException e) {
      throw new IllegalStateException("the MySQL cost probe failed: " + e.getMessage(), e);
    } finally {
      for (Namespace namespace : namespaces) {
        namespace.drop(Server.MYSQL, env);
      }
    }
  }

  /** The server's process id from its pid file, or -1 if that is not readable here. */
  private static long serverPid(Connection probe) throws SQLException {
    try (Statement s = probe.createStatement();
        ResultSet row = s.executeQuery("SELECT @@pid_file, @@datadir")) {
      row.next();
      Path file = Path.of(row.getString(2)).resolve(row.getString(1));
      return Long.parseLong(Files.readString(file).trim());
    } catch (IOException | RuntimeException notHere) {
      return -1;
    }
  }

  /** The server's status counters before and after each turn, on the probe's connection. */
  private record Meter(Connection probe, long serverPid) implements CostProbe.Meter {

    @Override
    public Turn begin(CostProbe.Subject subject) {
      Turn counted = CostProbe.Meter.difference(this::read);
      return new Turn() {
        @Override
        public void operationsDone() {
          counted.operationsDone();
        }

        @Override
        public Map<String, Double> totals() {
          Map<String, Double> totals = counted.totals();
          totals.merge(STATEMENTS, -1.0, Double::sum); // the probe's SHOW after the turn
          return totals;
        }
      };
    }

    private Map<String, Double> read() {
      Map<String, Double> values = new LinkedHashMap<>();
      for (String figure : List.of(STATEMENTS, WRITES, UPDATES, LOOKUPS, REDO)) {
        values.put(figure, Double.NaN);
      }
      try (Statement s = probe.createStatement();
          ResultSet rows =
              s.executeQuery(
                  "SHOW GLOBAL STATUS WHERE Variable_name IN ("
                      + "'Questions', 'Handler_write', 'Handler_update', 'Handler_read_key',"
                      + " 'Innodb_lsn_current')")) {
        while (rows.next()) {
          values.put(STATUS.get(rows.getString(1)), rows.getDouble(2));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "the MySQL cost probe could not read the server's status: " + e.getMessage(), e);
      }
      values.put(
          CostProbe.SERVER_CPU, serverPid < 0 ? Double.NaN : CostProbe.processCpuMicros(serverPid));
      return values;
    }
  }
}
