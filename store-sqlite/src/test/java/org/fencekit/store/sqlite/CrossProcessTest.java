package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes on one file: this JVM and a {@link StoreProcess} in a child JVM. Each has its own
 * clock, set to fixed instants, so the outcomes do not depend on timing.
 */
class CrossProcessTest {

  private static final Duration LEASE = Duration.ofMinutes(2);
  private static final Duration ANSWER = Duration.ofSeconds(60);
  private static final Item ESIM = new Item("prov-esim-1", "LPA:1$smdp.example$ACTIVATION-1");

  @TempDir Path dir;

  private static long millis(Instant instant) {
    return instant.toEpochMilli();
  }

  @Test
  @DisplayName("sqlite: a stale write from another process is fenced off")
  void staleWriteFromAnotherProcess() throws Exception {
    Path file = dir.resolve("orders.db");
    TestClock clock = new TestClock();
    Instant t0 = clock.instant();
    try (SqliteOrderStore store = SqliteOrderStore.builder(file).clock(clock).build();
        ChildStore child = ChildStore.start(file, dir)) {
      // Attempt A, here, claims and then overruns its lease.
      ClaimResult first = store.claim(StoreProcess.snapshot("cs_cross_stale"), LEASE);
      ClaimId slow = assertInstanceOf(ClaimResult.Claimed.class, first).claimId();

      // Attempt B, in the other process, re-claims once the lease is over and provisions.
      String claimed =
          child.send(
              "claim " + millis(t0.plus(LEASE)) + " cs_cross_stale " + LEASE.toMillis(), ANSWER);
      assertTrue(claimed.startsWith("claimed "), "the child's claim after the lease: " + claimed);
      ClaimId fresh = ClaimId.parse(claimed.substring("claimed ".length()));
      assertEquals(2, fresh.fence());
      assertEquals(
          "written PROVISIONED 2",
          child.send(
              "complete "
                  + millis(t0.plus(LEASE).plusSeconds(1))
                  + " cs_cross_stale "
                  + fresh
                  + " "
                  + ESIM.providerOrderId(),
              ANSWER));

      // A's provider call finally throws; its fail must not undo B's provisioned order.
      clock.set(t0.plus(LEASE).plusSeconds(40));
      WriteResult stale = store.fail("cs_cross_stale", slow, "provider outage");
      assertInstanceOf(
          WriteResult.Superseded.class, stale, () -> "a stale fail from " + slow + " was " + stale);
      OrderRecord record = store.get("cs_cross_stale").orElseThrow();
      assertEquals(
          OrderStatus.PROVISIONED, record.status(), "the customer's eSIM must survive: " + record);
      assertEquals(fresh, record.settledBy());
      assertEquals(ESIM.providerOrderId(), record.item().providerOrderId());
      assertInstanceOf(
          ClaimResult.Provisioned.class,
          store.claim(StoreProcess.snapshot("cs_cross_stale"), LEASE),
          "the order must not be re-opened for a third purchase");

      // The other way round: the stale token travels to the other process and is fenced there,
      // and its purchase is kept as an orphan for this process to see.
      long later = millis(t0.plus(LEASE).plusSeconds(50));
      assertEquals(
          "superseded PROVISIONED 2",
          child.send("fail " + later + " cs_cross_stale " + slow + " provider-outage", ANSWER));
      assertEquals(
          "superseded PROVISIONED 2",
          child.send("complete " + later + " cs_cross_stale " + slow + " prov-esim-2", ANSWER));
      assertEquals(
          record, store.get("cs_cross_stale").orElseThrow(), "a fenced write changes nothing");
      List<Orphan> orphans = store.orphans("cs_cross_stale");
      assertEquals(1, orphans.size(), () -> "orphans: " + orphans);
      assertEquals(slow, orphans.get(0).claimId());
      assertEquals("prov-esim-2", orphans.get(0).item().providerOrderId());
      assertEquals(Instant.ofEpochMilli(later), orphans.get(0).recordedAt());
    }
  }

  @Test
  @DisplayName(
      "sqlite: two processes racing claims over 200 orders get one owner per order and strictly increasing fences")
  void racingProcesses() throws Exception {
    Path file = dir.resolve("orders.db");
    int orders = 200;
    int rounds = 3;
    long start = millis(TestClock.START);
    long lease = LEASE.toMillis();
    TestClock clock = new TestClock();
    List<String> mine;
    String theirs;
    try (SqliteOrderStore store =
            SqliteOrderStore.builder(file)
                .clock(clock)
                .busyTimeout(Duration.ofSeconds(60))
                .build();
        ChildStore child = ChildStore.start(file, dir)) {
      // Both race over the same orders, each in its own shuffled order, each round's claims made
      // at the time the previous round's leases run out: every round has exactly one winner per
      // order, and an order changes hands between processes from round to round.
      // Both wait for the same wall-clock start line, so the processes overlap.
      long startAt = System.currentTimeMillis() + 500;
      CompletableFuture<List<String>> local =
          CompletableFuture.supplyAsync(
              () -> {
                StoreProcess.awaitWallClock(startAt);
                return StoreProcess.race(store, clock, start, lease, rounds, orders, "cs_race_", 1);
              });
      theirs =
          child.send(
              String.join(
                  " ",
                  "race",
                  Long.toString(startAt),
                  Long.toString(start),
                  Long.toString(lease),
                  Integer.toString(rounds),
                  Integer.toString(orders),
                  "cs_race_",
                  "2"),
              Duration.ofSeconds(180));
      mine = local.get(180, TimeUnit.SECONDS);
      if (theirs.startsWith("error")) {
        fail("the child's race failed: " + theirs);
      }

      Map<String, List<String>> byOrder = new TreeMap<>();
      Map<String, Map<String, List<Long>>> fencesByProcess = new HashMap<>();
      record(mine, "parent", byOrder, fencesByProcess);
      record(List.of(theirs.split(",")), "child", byOrder, fencesByProcess);

      for (int i = 0; i < orders; i++) {
        String sessionId = "cs_race_" + i;
        List<String> owners = byOrder.getOrDefault(sessionId, List.of());
        List<String> expected = new ArrayList<>();
        for (long fence = 1; fence <= rounds; fence++) {
          expected.add("fence " + fence);
        }
        List<String> fences =
            owners.stream().map(o -> o.substring(o.indexOf("fence "))).sorted().toList();
        assertEquals(
            expected,
            fences,
            () ->
                sessionId
                    + ": each fence must go to exactly one process"
                    + " (one owner per round), got "
                    + owners);
        OrderRecord record = store.get(sessionId).orElseThrow();
        assertEquals(rounds, record.fence(), () -> sessionId + " after the race: " + record);
        assertEquals(OrderStatus.PENDING, record.status());
        for (Map.Entry<String, Map<String, List<Long>>> process : fencesByProcess.entrySet()) {
          List<Long> seen = process.getValue().getOrDefault(sessionId, List.of());
          for (int k = 1; k < seen.size(); k++) {
            assertTrue(
                seen.get(k) > seen.get(k - 1),
                () ->
                    "the fences "
                        + process.getKey()
                        + " was granted on "
                        + sessionId
                        + " must strictly increase, got "
                        + seen);
          }
        }
      }
      long parentWins = mine.stream().filter(e -> e.contains(":claimed:")).count();
      long childWins =
          List.of(theirs.split(",")).stream().filter(e -> e.contains(":claimed:")).count();
      assertEquals((long) orders * rounds, parentWins + childWins);
    }
  }

  /** Collects the granted claims, "round r by process: fence f", per order. */
  private static void record(
      List<String> entries,
      String process,
      Map<String, List<String>> byOrder,
      Map<String, Map<String, List<Long>>> fencesByProcess) {
    for (String entry : entries) {
      String[] parts = entry.split(":");
      String sessionId = parts[1];
      long fence = Long.parseLong(parts[3]);
      if (parts[2].equals("claimed")) {
        byOrder
            .computeIfAbsent(sessionId, k -> new ArrayList<>())
            .add("round " + parts[0] + " by " + process + ": fence " + fence);
        fencesByProcess
            .computeIfAbsent(process, k -> new HashMap<>())
            .computeIfAbsent(sessionId, k -> new ArrayList<>())
            .add(fence);
      } else if (!parts[2].equals("inflight")) {
        fail(process + " got " + entry + "; no order is ever provisioned in this race");
      }
    }
  }
}
