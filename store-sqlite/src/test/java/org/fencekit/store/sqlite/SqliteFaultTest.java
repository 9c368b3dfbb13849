package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault harness on a SQLite file under load: a writer in another JVM killed with SIGKILL
 * mid-transaction, again and again; the disk filling up; the file turned read-only. Each run must
 * show no violation of checks (a) to (g), and the file must pass {@code PRAGMA integrity_check}.
 */
@DisplayName("SqliteOrderStore under load while its file's writers die and its disk fills")
class SqliteFaultTest {

  @TempDir Path dir;

  private static ManualClock clock() {
    return new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  private static String integrity(Path file) throws Exception {
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("PRAGMA integrity_check")) {
      rows.next();
      return rows.getString(1);
    }
  }

  @Test
  @DisplayName(
      "a writer JVM killed with SIGKILL mid-transaction six times under load: no violation, and"
          + " PRAGMA integrity_check is ok")
  void writerKilledRepeatedly() throws Exception {
    Path file = dir.resolve("orders.db");
    ManualClock clock = clock();
    try (SqliteOrderStore store =
        SqliteOrderStore.builder(file).clock(clock).busyTimeout(Duration.ofSeconds(2)).build()) {
      FaultRun.builder("sqlite/writer-killed", store, clock)
          .fault(
              () -> {
                int kills = 0;
                for (int i = 0; i < 6; i++) {
                  Process writer = WriterProcess.start(file, "child" + i + "-");
                  Thread.sleep(ThreadLocalRandom.current().nextLong(50, 250));
                  writer.destroyForcibly().waitFor();
                  kills++;
                }
                return kills;
              })
          .run()
          .assertNoViolations();
    }
    assertEquals("ok", integrity(file));
  }

  @Test
  @DisplayName(
      "the disk fills up under load for a second, then space is freed: no violation, writes that"
          + " failed said nothing was written")
  void diskFillsUp() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(8)) {
      Path file = disk.dir().resolve("orders.db");
      ManualClock clock = clock();
      try (SqliteOrderStore store = SqliteOrderStore.builder(file).clock(clock).build()) {
        FaultRun.builder("sqlite/disk-full", store, clock)
            .fault(
                () -> {
                  disk.fill();
                  Thread.sleep(1000);
                  disk.free();
                  return 1;
                })
            .run()
            .assertNoViolations();
      }
      assertEquals("ok", integrity(file));
    }
  }

  @Test
  @DisplayName(
      "the file turned read-only under load for a second: open connections keep working, no"
          + " violation")
  void fileTurnedReadOnly() throws Exception {
    Path file = dir.resolve("orders.db");
    ManualClock clock = clock();
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).clock(clock).build()) {
      FaultRun.builder("sqlite/read-only", store, clock)
          .fault(
              () -> {
                try (SqliteExactOutcomeTest.ReadOnly readOnly =
                    SqliteExactOutcomeTest.ReadOnly.make(file)) {
                  Thread.sleep(1000);
                  return readOnly == null ? 0 : 1;
                }
              })
          .run()
          .assertNoViolations();
    }
    assertEquals("ok", integrity(file));
  }
}
