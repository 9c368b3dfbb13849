package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the SQLite store says when the disk fills up, the file cannot be written or is damaged:
 * exactly whether anything was written, and refusals at build() rather than at the first write.
 */
@DisplayName("SqliteOrderStore on a full disk, a read-only file, a damaged file")
class SqliteExactOutcomeTest {

  private static final Duration LEASE = Duration.ofMinutes(2);

  @TempDir Path dir;

  private static OrderSnapshot snapshot(String id) {
    return new OrderSnapshot(id, "esim", 1, null, 100, "usd");
  }

  @Test
  @DisplayName(
      "a COMMIT that fails with SQLITE_FULL says nothing was written, and nothing was; space"
          + " freed, the same store writes again")
  void fullDiskCommitWritesNothing() throws IOException {
    try (SmallDisk disk = SmallDisk.mount(2)) {
      TestClock clock = new TestClock();
      try (SqliteOrderStore store =
          SqliteOrderStore.builder(disk.dir().resolve("orders.db")).clock(clock).build()) {
        store.claim(snapshot("cs_before"), LEASE);
        disk.fill();
        StoreUnavailableException failure = null;
        String failed = null;
        for (int i = 0; i < 2000 && failure == null; i++) {
          String id = "cs_full_" + i + "_" + "x".repeat(200);
          try {
            store.claim(snapshot(id), LEASE);
          } catch (StoreUnavailableException e) {
            failure = e;
            failed = id;
          }
        }
        if (failure == null) {
          fail("2000 claims fitted on a full disk");
        }
        assertTrue(failure.getMessage().contains("full"), failure.getMessage());
        assertFalse(failure.outcomeUnknown(), failure.getMessage());
        disk.free();
        assertTrue(store.get(failed).isEmpty(), "the failed claim was not written");
        String retried = failed;
        assertDoesNotThrow(() -> store.claim(snapshot(retried), LEASE));
      }
    }
  }

  @Test
  @DisplayName(
      "build() on a file it cannot write throws, naming the file, instead of the first write")
  void readOnlyFileRefusedAtBuild() throws Exception {
    Path file = dir.resolve("orders.db");
    SqliteOrderStore.builder(file).build().close();
    try (ReadOnly readOnly = ReadOnly.make(file)) {
      assertFalse(Files.isWritable(file) && !readOnly.immutable, file + " is still writable");
      try {
        SqliteOrderStore.builder(file).build().close();
        fail("build() on a read-only file succeeded");
      } catch (StoreUnavailableException e) {
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("write"), e.getMessage());
      }
    }
  }

  @Test
  @DisplayName(
      "a damaged file is refused at open (PRAGMA quick_check); quickCheck(false) skips the check")
  void damagedFileRefusedAtOpen() throws IOException {
    Path file = dir.resolve("orders.db");
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).build()) {
      for (int i = 0; i < 300; i++) {
        store.claim(snapshot("cs_" + i + "_" + "y".repeat(100)), LEASE);
      }
    }
    long size = Files.size(file);
    try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw")) {
      // garble the middle of every page after the first two: the b-tree cells no longer parse
      for (long page = 2; page * 4096 < size; page++) {
        raw.seek(page * 4096 + 100);
        raw.write(new byte[400]);
        raw.seek(page * 4096 + 8);
        raw.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
      }
    }
    try {
      SqliteOrderStore.builder(file).build().close();
      fail("a damaged file was opened");
    } catch (StoreUnavailableException e) {
      assertTrue(e.getMessage().contains("quick_check"), e.getMessage());
      assertTrue(e.getMessage().contains("quickCheck(false)"), e.getMessage());
    }
    // quickCheck(false) skips the check; what opening reads next (the schema version, from a
    // garbled page here) may still refuse the file, but never by quick_check
    try {
      SqliteOrderStore.builder(file).quickCheck(false).build().close();
    } catch (RuntimeException e) {
      assertFalse(e.getMessage().contains("quick_check"), e.getMessage());
    }
  }

  /** A file made unwritable: chattr +i as root (chmod does not stop root), else chmod a-w. */
  static final class ReadOnly implements AutoCloseable {
    private final Path file;
    private final boolean immutable;

    private ReadOnly(Path file, boolean immutable) {
      this.file = file;
      this.immutable = immutable;
    }

    static ReadOnly make(Path file) throws Exception {
      boolean root = "root".equals(System.getProperty("user.name"));
      if (root) {
        Process chattr = new ProcessBuilder(List.of("chattr", "+i", file.toString())).start();
        if (chattr.waitFor() != 0) {
          org.junit.jupiter.api.Assumptions.abort(
              "cannot make " + file + " immutable (chattr +i) on this file system");
        }
        return new ReadOnly(file, true);
      }
      assertTrue(file.toFile().setWritable(false, false));
      return new ReadOnly(file, false);
    }

    @Override
    public void close() throws IOException {
      if (immutable) {
        Process chattr = new ProcessBuilder(List.of("chattr", "-i", file.toString())).start();
        try {
          chattr.waitFor();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted making " + file + " writable again", e);
        }
      } else {
        file.toFile().setWritable(true);
      }
    }
  }
}
