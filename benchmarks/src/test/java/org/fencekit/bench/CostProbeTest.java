package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.fencekit.testsupport.LoopbackPorts;
import org.fencekit.testsupport.OwnEtcdCluster;
import org.fencekit.testsupport.OwnMariadb;
import org.fencekit.testsupport.OwnPostgres;
import org.fencekit.testsupport.OwnRedis;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The cost probes count what they should: a short run of each checks the exact counts of the floor,
 * the raw baseline and ShedLock (statements, rows, HOT updates) and that every figure is there. No
 * time is asserted: times vary with the machine. Each server is one of the test's own: the WAL and
 * redo positions, the CPU and the command counters are the whole server's, so another test writing
 * to a shared server meanwhile would count as the subject's (PostgreSQL's statement counts only
 * where it loads pg_stat_statements, which the test's own does not).
 */
class CostProbeTest {

  private static final List<String> SUBJECTS =
      List.of(
          CostProbe.FENCEKIT_DATASOURCE,
          CostProbe.FENCEKIT_URL,
          CostProbe.RAW,
          CostProbe.FLOOR,
          CostProbe.SHEDLOCK);

  @Test
  @DisplayName(
      "PostgreSQL: one insert and one update per claim + complete, the floor's HOT, the indexed"
          + " floor's not")
  void postgres() {
    // WAL is the whole server's: on the shared one another fork's writes during the floor's turn
    // outweighed the indexed floor's index entries. No autovacuum or timed checkpoint either (a
    // page's first change after a checkpoint writes a full page image), as README's private run.
    try (OwnPostgres server = OwnPostgres.start("autovacuum=off", "checkpoint_timeout=1h")) {
      postgres(PostgresCost.measure(server.jdbcUrl(), 60, 1));
    }
  }

  private static void postgres(CostProbe.Result result) {
    System.out.print(result.format());
    List<String> subjects = new java.util.ArrayList<>(SUBJECTS);
    subjects.add(subjects.indexOf(CostProbe.FLOOR) + 1, CostProbe.INDEXED_FLOOR);
    assertEquals(subjects, result.subjects());
    for (String subject : subjects) {
      boolean shedlock = subject.equals(CostProbe.SHEDLOCK);
      assertEquals(shedlock ? 0 : 1, result.median(PostgresCost.INSERTS, subject), subject);
      assertEquals(shedlock ? 2 : 1, result.median(PostgresCost.UPDATES, subject), subject);
      assertTrue(result.median(PostgresCost.WAL, subject) > 0, subject);
      assertTrue(result.median(CostProbe.CLIENT_ALLOC, subject) > 0, subject);
      // each statement one message (Parse, Bind, Execute, Sync), flushed once: two round trips
      assertRoundTrips(2, result, subject);
      double statements = result.median(PostgresCost.STATEMENTS, subject);
      if (!subject.startsWith("fencekit")) {
        assertTrue(Double.isNaN(statements) || statements == 2, subject + ": " + statements);
      }
    }
    // the floor's complete changes no indexed column: a HOT update wherever the page has room
    assertTrue(result.median(PostgresCost.HOT, CostProbe.FLOOR) >= 0.9, result.format());
    // the indexed floor's complete takes the order out of its held-claims index: never HOT, and
    // the index entry its claim adds is WAL the floor does not write: a B-tree insert record is
    // more than 32 bytes (its header alone is 24), where the private server's own background
    // records add a byte or so per operation (with no index at all the two differed by under 1)
    assertEquals(0, result.median(PostgresCost.HOT, CostProbe.INDEXED_FLOOR), result.format());
    assertTrue(
        result.median(PostgresCost.WAL, CostProbe.INDEXED_FLOOR)
            >= result.median(PostgresCost.WAL, CostProbe.FLOOR) + 32,
        result.format());
  }

  @Test
  @DisplayName("MariaDB: 2 statements for the store, the raw baseline, the floor and ShedLock")
  void mysql() {
    try (OwnMariadb server = OwnMariadb.start()) {
      CostProbe.Result result = MysqlCost.measure(server.jdbcUrl(), 60, 1);
      System.out.print(result.format());
      assertEquals(SUBJECTS, result.subjects());
      Map<String, Double> statements =
          Map.of(
              CostProbe.FENCEKIT_DATASOURCE,
              2.0,
              CostProbe.FENCEKIT_URL,
              2.0,
              CostProbe.RAW,
              2.0,
              CostProbe.FLOOR,
              2.0,
              CostProbe.SHEDLOCK,
              2.0);
      statements.forEach(
          (subject, expected) ->
              assertEquals(expected, result.median(MysqlCost.STATEMENTS, subject), subject));
      for (String subject : SUBJECTS) {
        boolean shedlock = subject.equals(CostProbe.SHEDLOCK);
        assertEquals(shedlock ? 0 : 1, result.median(MysqlCost.WRITES, subject), subject);
        assertEquals(shedlock ? 2 : 1, result.median(MysqlCost.UPDATES, subject), subject);
        assertTrue(result.median(MysqlCost.STATEMENTS, subject) >= 2, subject);
        assertTrue(result.median(MysqlCost.REDO, subject) > 0, subject);
        assertTrue(result.median(CostProbe.SERVER_CPU, subject) >= 0, subject);
        assertRoundTrips(2, result, subject);
      }
    }
  }

  /**
   * {@code subject} sent {@code expected} messages per operation: its calling thread's write calls,
   * give or take the one round trip of a pool that checks a connection idle for over half a second
   * (HikariCP's isValid at each turn's first checkout: 1 in 60 operations here).
   */
  private static void assertRoundTrips(int expected, CostProbe.Result result, String subject) {
    assertEquals(expected, result.median(CostProbe.WRITE_CALLS, subject), 0.05, subject);
  }

  @Test
  @DisplayName("Redis: two scripts per claim + complete, ShedLock's two commands")
  void redis() {
    try (OwnRedis server = OwnRedis.start()) {
      CostProbe.Result result = RedisCost.measure(server.url(), 60, 1);
      System.out.print(result.format());
      for (String subject :
          List.of(RedisCost.FENCEKIT, CostProbe.RAW, CostProbe.FLOOR, CostProbe.INDEXED_FLOOR)) {
        assertEquals(2, result.median(RedisCost.SCRIPTS, subject), subject);
        assertRoundTrips(2, result, subject);
        assertTrue(result.median(RedisCost.COMMANDS, subject) > 2, subject);
      }
      assertEquals(
          result.median(RedisCost.COMMANDS, CostProbe.FLOOR) + 2,
          result.median(RedisCost.COMMANDS, CostProbe.INDEXED_FLOOR),
          "the indexed floor adds its held-claims index's ZADD and ZREM to the floor");

      assertEquals(
          result.median(RedisCost.COMMANDS, RedisCost.FENCEKIT),
          result.median(RedisCost.COMMANDS, CostProbe.RAW),
          "the raw baseline runs the store's scripts");
      assertEquals(0, result.median(RedisCost.SCRIPTS, RedisCost.SHEDLOCK));
      assertEquals(2, result.median(RedisCost.COMMANDS, RedisCost.SHEDLOCK), "SET NX PX, DEL");
      assertRoundTrips(2, result, RedisCost.SHEDLOCK);
      assertTrue(result.median(CostProbe.PROCESS_CPU, RedisCost.REDISSON) > 0);
    }
  }

  @Test
  @DisplayName(
      "without /proc/thread-self/io (not Linux) the written bytes and write calls are unknown, and"
          + " the probe runs on")
  void threadIoWithoutProc() {
    java.nio.file.Path none = java.nio.file.Path.of("/proc/no-such-entry/io");
    Map<String, Double> io = CostProbe.threadIo(none);
    assertEquals(List.of(CostProbe.WRITTEN, CostProbe.WRITE_CALLS), List.copyOf(io.keySet()));
    io.values().forEach(value -> assertTrue(Double.isNaN(value), io.toString()));
    Map<String, Double> here = CostProbe.threadIo();
    assertTrue(here.get(CostProbe.WRITE_CALLS) >= 0, here.toString());
  }

  @Test
  @DisplayName("embedded: memory writes nothing, SQLite commits twice per claim + complete")
  void embedded() {
    CostProbe.Result result = EmbeddedCost.measure(60, 2);
    System.out.print(result.format());
    assertEquals(
        List.of(
            "memory",
            "memory-map",
            EmbeddedCost.MEMORY_FLOOR,
            "sqlite",
            "sqlite-jdbc",
            "sqlite-normal",
            "sqlite-normal-jdbc"),
        result.subjects());
    for (String subject : List.of("memory", "memory-map", EmbeddedCost.MEMORY_FLOOR)) {
      assertEquals(0, result.median(EmbeddedCost.COMMITS, subject), subject);
      assertEquals(0, result.median(CostProbe.WRITTEN, subject), subject);
      assertEquals(0, result.median(CostProbe.WRITE_CALLS, subject), subject);
      assertTrue(result.median(CostProbe.CLIENT_ALLOC, subject) > 0, subject);
    }
    for (String subject : List.of("sqlite", "sqlite-jdbc", "sqlite-normal", "sqlite-normal-jdbc")) {
      // the claim's and the complete's BEGIN IMMEDIATE ... COMMIT, each writing WAL frames
      assertEquals(2, result.median(EmbeddedCost.COMMITS, subject), subject);
      // two write calls per frame, at least one frame per commit
      assertTrue(result.median(CostProbe.WRITE_CALLS, subject) >= 4, subject);
      assertTrue(result.median(CostProbe.WRITTEN, subject) >= 2 * 4096, subject);
    }
  }

  @Test
  @DisplayName("etcd: the store's gRPC requests are its raw baseline's, two transactions")
  void etcd() {
    // one member of the test's own: no other client adds to its counters
    try (OwnEtcdCluster server = OwnEtcdCluster.start(1)) {
      CostProbe.Result result = EtcdCost.measure(server.endpoints(), 40, 2);
      System.out.print(result.format());
      assertEquals(
          List.of(EtcdCost.FENCEKIT, CostProbe.RAW, EtcdCost.ETCD_LOCK), result.subjects());
      for (String subject : List.of(EtcdCost.FENCEKIT, CostProbe.RAW)) {
        assertEquals(2, result.median(EtcdCost.TXNS, subject), subject);
        assertEquals(2, result.median(EtcdCost.REQUESTS, subject), subject);
        // the claim puts the order and its index key; the complete puts it, deletes the key
        assertEquals(4, result.median(EtcdCost.KEYS, subject), subject);
        assertEquals(2, result.median(EtcdCost.FSYNCS, subject), subject);
        assertTrue(result.median(EtcdCost.WAL, subject) > 0, subject);
      }
      // the same keys; the raw baseline's values are fixed bytes of about a record's size
      double raw = result.median(EtcdCost.WAL, CostProbe.RAW);
      assertEquals(raw, result.median(EtcdCost.WAL, EtcdCost.FENCEKIT), raw * 0.1, result.format());
      assertEquals(0, result.median(EtcdCost.TXNS, EtcdCost.ETCD_LOCK), "Lock, Unlock");
      assertEquals(2, result.median(EtcdCost.REQUESTS, EtcdCost.ETCD_LOCK), "Lock, Unlock");
      assertTrue(result.median(CostProbe.PROCESS_CPU, EtcdCost.FENCEKIT) > 0);
    }
  }

  @Test
  @DisplayName("the command: 64 for a wrong command line, 2 naming the server it cannot reach")
  void command() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    CostCommand.Probe never =
        (url, orders, runs) -> {
          throw new AssertionError("not to be run");
        };
    assertEquals(Main.USAGE, CostCommand.run("probe", "", never, new String[] {}, out));
    assertEquals(
        Main.USAGE,
        CostCommand.run("probe", "", never, new String[] {"--url", "x", "--orders", "0"}, out));
    CostCommand.EmbeddedProbe none =
        (orders, runs) -> {
          throw new AssertionError("not to be run");
        };
    assertEquals(
        Main.USAGE, CostCommand.runEmbedded("probe", "", none, new String[] {"--url", "x"}, out));
    String closed = "jdbc:postgresql://127.0.0.1:" + LoopbackPorts.closed() + "/test?user=postgres";
    assertEquals(
        Main.UNAVAILABLE,
        CostCommand.run(
            "probe",
            "",
            PostgresCost::measure,
            new String[] {"--url", closed, "--runs", "1"},
            out));
  }
}
