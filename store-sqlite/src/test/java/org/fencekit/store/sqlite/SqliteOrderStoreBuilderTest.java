package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The builder: every bad property is named and rejected before the file is touched. */
class SqliteOrderStoreBuilderTest {

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("orders.db");
  }

  /**
   * Builds with {@code change} applied and expects {@code type} naming {@code property}; no file.
   */
  private void rejected(
      Class<? extends RuntimeException> type,
      String property,
      UnaryOperator<SqliteOrderStore.Builder> change) {
    RuntimeException e =
        assertThrows(type, () -> change.apply(SqliteOrderStore.builder(file())).build().close());
    assertTrue(
        String.valueOf(e.getMessage()).contains(property),
        () -> "the message should name " + property + ": " + e.getMessage());
    assertFalse(Files.exists(file()), "a rejected builder must not create " + file());
  }

  @ParameterizedTest(name = "ordersTable {0}")
  @ValueSource(
      strings = {
        "",
        " ",
        "1orders",
        "orders-x",
        "orders x",
        "\"orders\"",
        "orders\"; DROP TABLE t; --",
        "orders; DROP TABLE fencekit_orphans",
        "o'rders",
        "orders)",
        "ordérs",
        "sqlite_master",
        "SQLITE_orders",
        "a123456789012345678901234567890123456789012345678901234567890123"
      })
  @DisplayName("a table name that is not a plain identifier is rejected, SQL injection included")
  void badTableNames(String name) {
    rejected(IllegalArgumentException.class, "ordersTable", b -> b.ordersTable(name));
    rejected(IllegalArgumentException.class, "orphansTable", b -> b.orphansTable(name));
  }

  @Test
  @DisplayName("null properties are rejected, each by name")
  void nullProperties() {
    rejected(NullPointerException.class, "ordersTable", b -> b.ordersTable(null));
    rejected(NullPointerException.class, "orphansTable", b -> b.orphansTable(null));
    rejected(NullPointerException.class, "clock", b -> b.clock(null));
    rejected(NullPointerException.class, "synchronous", b -> b.synchronous(null));
    rejected(NullPointerException.class, "busyTimeout", b -> b.busyTimeout(null));
    rejected(NullPointerException.class, "acquireTimeout", b -> b.acquireTimeout(null));
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> SqliteOrderStore.builder(null));
    assertEquals("file", e.getMessage());
  }

  @Test
  @DisplayName("the two tables must differ, ignoring case as SQLite does")
  void sameTables() {
    rejected(
        IllegalArgumentException.class,
        "orphansTable",
        b -> b.ordersTable("shop").orphansTable("SHOP"));
  }

  @Test
  @DisplayName("connections, busyTimeout and acquireTimeout out of range are rejected by name")
  void ranges() {
    rejected(IllegalArgumentException.class, "connections", b -> b.connections(0));
    rejected(IllegalArgumentException.class, "connections", b -> b.connections(-4));
    rejected(IllegalArgumentException.class, "connections", b -> b.connections(65));
    rejected(IllegalArgumentException.class, "busyTimeout", b -> b.busyTimeout(Duration.ZERO));
    rejected(
        IllegalArgumentException.class, "busyTimeout", b -> b.busyTimeout(Duration.ofMillis(-1)));
    rejected(
        IllegalArgumentException.class, "busyTimeout", b -> b.busyTimeout(Duration.ofDays(30)));
    rejected(
        IllegalArgumentException.class, "acquireTimeout", b -> b.acquireTimeout(Duration.ZERO));
  }

  @Test
  @DisplayName("a file in a missing directory is rejected, and the directory is not created")
  void missingDirectory() {
    Path missing = dir.resolve("no/such/dir/orders.db");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> SqliteOrderStore.builder(missing).build());
    assertTrue(e.getMessage().startsWith("file "), e.getMessage());
    assertFalse(Files.exists(dir.resolve("no")));
  }

  @Test
  @DisplayName("a directory, or a path with '?', is not taken for a database file")
  void notAFile() {
    assertThrows(IllegalArgumentException.class, () -> SqliteOrderStore.builder(dir).build());
    Path query = dir.resolve("orders.db?journal_mode=DELETE");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SqliteOrderStore.builder(query).build());
    assertTrue(e.getMessage().contains("'?'"), e.getMessage());
    try (var files = Files.list(dir)) {
      assertEquals(List.of(), files.toList());
    } catch (java.io.IOException ex) {
      throw new java.io.UncheckedIOException(ex);
    }
  }

  @Test
  @DisplayName(
      "a file that is not a SQLite database fails with StoreUnavailableException naming it")
  void notADatabase() throws Exception {
    Files.writeString(
        file(),
        "this is not a database, it is a shopping list: milk, eggs, bread, "
            + "and enough text to fill SQLite's header check");
    StoreUnavailableException e =
        assertThrows(
            StoreUnavailableException.class, () -> SqliteOrderStore.builder(file()).build());
    assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
    assertTrue(e.getMessage().startsWith("sqlite store: open"), e.getMessage());
  }

  @Test
  @DisplayName("a table of that name with another shape is reported, not written into")
  void foreignTable() throws Exception {
    int locks = FileLocks.size();
    try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = raw.createStatement()) {
      s.execute("CREATE TABLE fencekit_orders (id INTEGER PRIMARY KEY, name TEXT)");
    }
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> SqliteOrderStore.builder(file()).build());
    assertTrue(e.getMessage().contains("fencekit_orders"), e.getMessage());
    assertEquals(locks, FileLocks.size(), "a failed build must give up the file's lock");
  }

  @Test
  @DisplayName(
      "a user-given path in nested directories, with spaces and non-ASCII names, works and persists")
  void userPath() throws Exception {
    Path nested = Files.createDirectories(dir.resolve("shop data/ünïcode dir/deeper"));
    Path file = nested.resolve("my orders.sqlite");
    TestClock clock = new TestClock();
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).clock(clock).build()) {
      assertEquals(file, store.file());
      assertInstanceOf(
          ClaimResult.Claimed.class,
          store.claim(StoreProcess.snapshot("cs_nested"), Duration.ofMinutes(2)));
    }
    assertTrue(Files.isRegularFile(file));
    try (SqliteOrderStore again = SqliteOrderStore.builder(file).clock(clock).build()) {
      assertEquals(
          1, again.get("cs_nested").orElseThrow().fence(), "the order must survive a reopen");
      assertInstanceOf(
          ClaimResult.InFlight.class,
          again.claim(StoreProcess.snapshot("cs_nested"), Duration.ofMinutes(2)));
    }
  }

  @Test
  @DisplayName("a relative path resolves against the working directory")
  void relativePath() throws Exception {
    Path relative = Path.of("").toAbsolutePath().relativize(dir.resolve("relative.db"));
    assertFalse(relative.isAbsolute());
    try (SqliteOrderStore store = SqliteOrderStore.builder(relative).build()) {
      store.claim(StoreProcess.snapshot("cs_relative"), Duration.ofMinutes(2));
    }
    assertTrue(Files.isRegularFile(dir.resolve("relative.db")));
  }
}
