package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.testsupport.StoreFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file changed under a running store: deleted with its -wal and -shm, replaced by another file
 * at its path, or made immutable ({@code chattr +i}, as root). Every write, a heartbeat for an
 * order that never exists included (the health probe), is then refused as unavailable, naming what
 * happened, and nothing is written into a file no path reaches; the same store writes again once
 * the file is writable again.
 */
class SqliteFileUnderneathTest {

  private static final Duration LEASE = Duration.ofMinutes(2);

  @TempDir Path dir;

  private static OrderSnapshot order(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, null, 1500, "eur");
  }

  private static StoreUnavailableException refused(SqliteOrderStore store, String sessionId) {
    StoreUnavailableException claim =
        assertThrows(StoreUnavailableException.class, () -> store.claim(order(sessionId), LEASE));
    StoreUnavailableException probe =
        assertThrows(
            StoreUnavailableException.class,
            () -> store.extend("no-such-order", new ClaimId(1, ClaimId.newNonce()), LEASE));
    String why = claim.getMessage().substring(claim.getMessage().indexOf("failed: "));
    assertTrue(probe.getMessage().endsWith(why), probe.getMessage());
    return claim;
  }

  @Test
  void aFileDeletedUnderneathRefusesEveryWrite() throws IOException {
    Path file = dir.resolve("orders.db");
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).build()) {
      assertInstanceOf(ClaimResult.Claimed.class, store.claim(order("cs_before"), LEASE));
      StoreFiles.delete(file);
      StoreUnavailableException e = refused(store, "cs_after");
      assertTrue(e.getMessage().contains("was deleted"), e.getMessage());
      assertTrue(!e.outcomeUnknown(), "nothing was written");
    }
    try (SqliteOrderStore reopened = SqliteOrderStore.builder(file).build()) {
      assertTrue(reopened.get("cs_after").isEmpty(), "nothing written to the deleted file");
    }
  }

  @Test
  void aFileReplacedUnderneathRefusesEveryWrite() throws IOException {
    Path file = dir.resolve("orders.db");
    Path other = dir.resolve("other.db");
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).build()) {
      assertInstanceOf(ClaimResult.Claimed.class, store.claim(order("cs_before"), LEASE));
      SqliteOrderStore.builder(other).build().close();
      Files.move(other, file, StandardCopyOption.REPLACE_EXISTING);
      StoreUnavailableException e = refused(store, "cs_after");
      assertTrue(e.getMessage().contains("no longer the file"), e.getMessage());
    }
  }

  @Test
  void anImmutableFileRefusesEveryWriteUntilItIsWritableAgain() {
    Path file = dir.resolve("orders.db");
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).build()) {
      assertInstanceOf(ClaimResult.Claimed.class, store.claim(order("cs_before"), LEASE));
      StoreFiles.Immutable immutable = StoreFiles.immutable(file);
      try {
        StoreUnavailableException e = refused(store, "cs_while");
        assertTrue(e.getMessage().contains("can no longer be written"), e.getMessage());
        assertTrue(store.get("cs_before").isPresent(), "reads go on");
      } finally {
        immutable.close();
      }
      assertInstanceOf(ClaimResult.Claimed.class, store.claim(order("cs_after"), LEASE));
      assertThrows(
          UnknownOrderException.class,
          () -> store.extend("no-such-order", new ClaimId(1, ClaimId.newNonce()), LEASE));
    }
  }
}
