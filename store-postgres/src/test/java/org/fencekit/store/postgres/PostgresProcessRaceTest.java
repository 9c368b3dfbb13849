package org.fencekit.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A forked JVM with pools of its own races this JVM for claims over 200 orders, round by round (see
 * {@link ClaimRace} for what each racer does and how the rounds go; in each process one racer is on
 * the fast path and one on locking transactions), then the union of both processes' results is
 * checked against the contract: one owner per fence, fences strictly increasing with no gap, no two
 * live leases overlapping, and no stale write landing.
 */
class PostgresProcessRaceTest {

  private static final int ORDERS = 200;
  private static final int ROUNDS = 3;
  private static final int RACERS_PER_PROCESS = 2;
  private static final long CHILD_SECONDS = 120;

  @RegisterExtension static final TestPostgres.ClassSchema schema = TestPostgres.schemaPerClass();

  @Test
  @DisplayName(
      "two processes racing over 200 orders: one owner per fence, fences strictly increasing, no stale write lands")
  void twoProcessesRace() throws Exception {
    String url = TestPostgres.jdbcUrl();
    String runId = ClaimId.newNonce().substring(0, 8);
    List<String> ids = ClaimRace.sessionIds(runId, ORDERS);
    TestClock setupClock = new TestClock();
    try (PostgresOrderStore setup =
        PostgresOrderStore.builder()
            .jdbcUrl(url)
            .schema(schema.name())
            .maximumPoolSize(1)
            .createSchema(true)
            .clock(setupClock)
            .build()) {
      setup.get(ids.get(0));
    }

    List<PostgresOrderStore> stores = new ArrayList<>();
    List<TestClock> clocks = new ArrayList<>();
    File errors = File.createTempFile("fencekit-race-child", ".err");
    Process child = null;
    try {
      for (int i = 0; i < RACERS_PER_PROCESS; i++) {
        TestClock clock = new TestClock();
        clocks.add(clock);
        stores.add(ClaimRace.store(url, schema.name(), clock, i));
        stores.get(i).get(ids.get(0));
      }
      ProcessBuilder builder =
          new ProcessBuilder(
              javaExecutable(),
              "-cp",
              classPath(),
              ClaimRace.class.getName(),
              schema.name(),
              runId,
              Integer.toString(ORDERS),
              Integer.toString(ROUNDS),
              Integer.toString(RACERS_PER_PROCESS));
      builder.environment().put(TestPostgres.URL_VARIABLE, url);
      builder.redirectError(errors);
      child = builder.start();
      ChildOutput output = new ChildOutput(child);
      assertTrue(
          output.ready.await(CHILD_SECONDS, TimeUnit.SECONDS),
          () -> "the forked JVM never printed READY; its stderr: " + read(errors));
      List<String> lines;
      try (Writer go = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
        ClaimRace.Gate gate =
            round -> {
              if (round > 0) {
                assertTrue(
                    output.rounds.tryAcquire(CHILD_SECONDS, TimeUnit.SECONDS),
                    () ->
                        "the forked JVM did not finish round " + (round - 1) + ": " + read(errors));
              }
              go.write("GO\n");
              go.flush();
            };
        lines =
            new ArrayList<>(ClaimRace.runAll("parent-", stores, clocks, ids, ROUNDS, false, gate));
      }
      assertTrue(
          child.waitFor(CHILD_SECONDS, TimeUnit.SECONDS), "the forked JVM did not finish in time");
      output.join();
      assertEquals(
          0, child.exitValue(), () -> "the forked JVM failed; its stderr: " + read(errors));
      assertTrue(
          output.done, () -> "the forked JVM did not print DONE; its stderr: " + read(errors));
      lines.addAll(output.lines);
      FastPath fast = stores.get(0).fastPath();
      assertTrue(
          fast.hits("claim") > 0 && fast.hits("extend") > 0,
          () ->
              "the fast path must have decided claims and extends in the race (the odd stores"
                  + " run the locking transactions): claim "
                  + fast.hits("claim")
                  + "/"
                  + fast.misses("claim")
                  + ", extend "
                  + fast.hits("extend"));

      check(lines, ids, stores.get(0), clocks.get(0));
    } finally {
      if (child != null) {
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
      }
      for (PostgresOrderStore store : stores) {
        store.close();
      }
      Files.deleteIfExists(errors.toPath());
    }
  }

  /** One granted claim, as the racer that got it reported it. */
  private record Claim(String racer, long fence, String nonce, long claimedAt, long expiresAt) {}

  private static void check(
      List<String> lines, List<String> ids, PostgresOrderStore store, TestClock clock) {
    Map<String, TreeMap<Long, Claim>> claims = new HashMap<>();
    Map<String, Long> lastFenceOfRacer = new HashMap<>();
    int stale = 0;
    int sawOtherProcess = 0;
    for (String line : lines) {
      String[] f = line.split(" ");
      String sid = f[2];
      switch (f[0]) {
        case "CLAIM" -> {
          Claim claim =
              new Claim(
                  f[1], Long.parseLong(f[3]), f[4], Long.parseLong(f[5]), Long.parseLong(f[6]));
          Claim twin = claims.computeIfAbsent(sid, k -> new TreeMap<>()).put(claim.fence(), claim);
          if (twin != null) {
            fail(
                "two owners of fence "
                    + claim.fence()
                    + " of order '"
                    + sid
                    + "': "
                    + twin
                    + " and "
                    + claim);
          }
          Long previous = lastFenceOfRacer.put(claim.racer() + " " + sid, claim.fence());
          if (previous != null && previous >= claim.fence()) {
            fail(
                "racer "
                    + claim.racer()
                    + " got fence "
                    + claim.fence()
                    + " of order '"
                    + sid
                    + "' after fence "
                    + previous
                    + ": fences must strictly increase");
          }
        }
        case "EXTEND" -> {
          long fence = Long.parseLong(f[3]);
          long current = Long.parseLong(f[5]);
          if (f[4].equals("Written")) {
            assertEquals(fence, current, () -> "an extend landed on a newer claim: " + line);
          } else {
            assertTrue(
                current > fence, () -> "an extend was superseded with no newer claim: " + line);
          }
        }
        case "STALE" -> {
          stale++;
          assertEquals("Superseded", f[4], () -> "a stale fail landed: " + line);
          assertTrue(
              Long.parseLong(f[5]) > Long.parseLong(f[3]),
              () -> "the current fence must be newer: " + line);
        }
        case "BUSY" ->
            assertEquals("InFlight", f[3], () -> "nothing completes in the race: " + line);
        default -> fail("unexpected line: " + line);
      }
    }
    assertTrue(stale > 0, "the race must have sent stale writes, or it tests nothing");

    for (String sid : ids) {
      TreeMap<Long, Claim> granted = claims.get(sid);
      assertNotNull(granted, "nobody claimed order '" + sid + "'");
      OrderRecord record = store.get(sid).orElseThrow();
      assertEquals(
          granted.size(),
          record.fence(),
          () ->
              "order '"
                  + sid
                  + "' has fence "
                  + record.fence()
                  + " but "
                  + granted.size()
                  + " claims were granted: "
                  + granted.keySet());
      assertEquals(
          granted.lastKey(),
          record.fence(),
          "fences of '" + sid + "' must run 1.." + granted.size());
      assertEquals(
          OrderStatus.PENDING,
          record.status(),
          () -> "a stale fail landed on '" + sid + "': " + record);
      assertEquals(
          new ClaimId(record.fence(), granted.lastEntry().getValue().nonce()),
          record.claimId(),
          "the current claim of '" + sid + "' must be the last one granted");
      Claim before = null;
      boolean bothProcesses = false;
      for (Claim claim : granted.values()) {
        if (before != null) {
          Claim earlier = before;
          assertTrue(
              claim.claimedAt() >= earlier.expiresAt(),
              () -> "two live claims on '" + sid + "' at once: " + earlier + " then " + claim);
          bothProcesses |= earlier.racer().charAt(0) != claim.racer().charAt(0);
        }
        before = claim;
      }
      if (bothProcesses) {
        sawOtherProcess++;
      }

      // Every token but the last is stale: each complete with one is superseded and orphaned.
      clock.set(Instant.ofEpochMilli(granted.lastEntry().getValue().claimedAt()));
      for (Claim claim : granted.headMap(record.fence()).values()) {
        ClaimId claimId = new ClaimId(claim.fence(), claim.nonce());
        WriteResult result = store.complete(sid, claimId, new Item("late-" + claim.fence(), null));
        assertInstanceOf(
            WriteResult.Superseded.class, result, () -> "stale " + claimId + " on '" + sid + "'");
        assertEquals(record, result.record(), "a superseded write changes nothing");
      }
      assertEquals(granted.size() - 1, store.orphans(sid).size(), "one orphan per stale complete");
    }
    assertTrue(
        sawOtherProcess > 0, "ownership must have passed between the processes at least once");
  }

  /** The child's standard output, read on a thread of its own. */
  private static final class ChildOutput extends Thread {
    final CountDownLatch ready = new CountDownLatch(1);
    final Semaphore rounds = new Semaphore(0);
    final List<String> lines = new ArrayList<>();
    volatile boolean done;
    private final Process child;

    ChildOutput(Process child) {
      this.child = child;
      setDaemon(true);
      start();
    }

    @Override
    public void run() {
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (line.equals("READY")) {
            ready.countDown();
          } else if (line.equals("ROUND")) {
            rounds.release();
          } else if (line.equals("DONE")) {
            done = true;
          } else {
            lines.add(line);
          }
        }
      } catch (IOException e) {
        // the child is gone; the test reports what it lacks
      }
    }
  }

  private static String javaExecutable() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
  }

  private static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank()
        ? surefire
        : System.getProperty("java.class.path");
  }

  private static String read(File file) {
    try {
      return Files.readString(file.toPath());
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
