package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the Redis store must do beyond the TCK, run on a single node by {@link RedisNodeStoreTest}
 * and on a cluster by {@link RedisClusterStoreTest}.
 */
abstract class RedisStoreBehaviour {

  /** Deletes this class's keys from the node and the cluster. */
  @AfterAll
  static void deleteKeys() {
    TestRedis.deleteKeys(PREFIX);
    TestRedis.deleteKeys(PREPROCESSED);
  }

  static final String PREFIX = TestRedis.newPrefix("behaviour");

  /**
   * The prefix of the store whose client rewrites every key: of its own, since that store reads its
   * layout key through the rewriting client and would take the other tests' orders under {@link
   * #PREFIX}, whose layout key it cannot see, for orders of an older layout.
   */
  static final String PREPROCESSED = TestRedis.newPrefix("preprocessed");

  static final Duration LEASE = Duration.ofMinutes(2);
  private static final Item ESIM = new Item("prov-1", "LPA:1$smdp.example$A");

  /** Points a builder at the backend under test. */
  abstract RedisOrderStore.Builder target(RedisOrderStore.Builder builder);

  /** A client of the test's own, for looking at and tampering with keys. */
  abstract UnifiedJedis raw();

  /** Runs {@code action} on a direct connection to each master (one for a single node). */
  abstract void eachMaster(Consumer<Jedis> action);

  /** The child JVM's first two arguments: {@code url <url>} or {@code cluster <nodes>}. */
  abstract List<String> childTarget();

  RedisOrderStore store(TestClock clock) {
    return store(PREFIX, clock);
  }

  /** A store on the backend under test with keys under {@code prefix}. */
  RedisOrderStore store(String prefix, TestClock clock) {
    return target(RedisOrderStore.builder()).keyPrefix(prefix).clock(clock).build();
  }

  static String sid(String label) {
    return "beh-" + ClaimId.newNonce().substring(0, 12) + "-" + label;
  }

  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  static ClaimId claimed(ClaimResult result) {
    return assertInstanceOf(
            ClaimResult.Claimed.class, result, () -> "expected Claimed, got " + result)
        .claimId();
  }

  /**
   * Writes keys as an older release did (layout 1, the first release; layout 2, before the status
   * said whether an order is claimed), with that release's own scripts, kept in the test resources
   * as they shipped. Each script is given layout 2's keys and arguments; layout 1's take the first
   * of them.
   */
  private static final class OlderLayout {
    private final UnifiedJedis raw;
    private final OrderKeys keys;
    private final int layout;

    OlderLayout(UnifiedJedis raw, OrderKeys keys, int layout) {
      this.raw = raw;
      this.keys = keys;
      this.layout = layout;
    }

    private String script(String name) {
      String dir = "layout" + layout + "/";
      try (var in = RedisStoreBehaviour.class.getResourceAsStream(dir + name + ".lua")) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private Object run(String name, List<String> keyList, List<String> args) {
      String lua = script(name);
      if (layout == 2) { // its scripts shared a prelude, put after each one's first line
        int firstLine = lua.indexOf('\n') + 1;
        lua = lua.substring(0, firstLine) + script("prelude") + lua.substring(firstLine);
      }
      return raw.eval(lua, keyList, args);
    }

    ClaimId claim(String id, long now, long expires) {
      String nonce = ClaimId.newNonce();
      List<?> reply =
          (List<?>)
              run(
                  "claim",
                  List.of(
                      keys.order(id),
                      keys.index(OrderKeys.CLAIMS, id),
                      keys.index(OrderKeys.FAILED, id)),
                  List.of(
                      Long.toString(now),
                      Long.toString(expires),
                      nonce,
                      id,
                      "esim-eu-5gb",
                      "1",
                      "ada@example.com",
                      "1999",
                      "usd",
                      OrderKeys.tag(id)));
      assertEquals("claimed", reply.get(0));
      return new ClaimId(Long.parseLong(raw.hget(keys.order(id), "claimFence")), nonce);
    }

    void complete(String id, ClaimId claim, long now, String providerOrderId, String payload) {
      run(
          "complete",
          List.of(
              keys.order(id),
              keys.orphans(id),
              keys.orphanIds(id),
              keys.index(OrderKeys.CLAIMS, id),
              keys.index(OrderKeys.ORPHANS, id)),
          List.of(
              Long.toString(claim.fence()),
              claim.nonce(),
              Long.toString(now),
              providerOrderId,
              payload == null ? "0" : "1",
              payload == null ? "" : payload,
              OrderKeys.tag(id),
              "0"));
    }

    void fail(String id, ClaimId claim, long now, String error) {
      run(
          "fail",
          List.of(
              keys.order(id), keys.index(OrderKeys.CLAIMS, id), keys.index(OrderKeys.FAILED, id)),
          List.of(
              Long.toString(claim.fence()),
              claim.nonce(),
              Long.toString(now),
              error,
              OrderKeys.tag(id),
              "0"));
    }

    /** The order as this layout's release read it (its HashCodec, as it shipped). */
    OrderRecord read(String id) {
      Map<String, String> h = raw.hgetAll(keys.order(id));
      return new OrderRecord(
          new OrderSnapshot(
              h.get("sessionId"),
              h.get("productId"),
              Integer.parseInt(h.get("quantity")),
              h.get("customerEmail"),
              Long.parseLong(h.get("amountTotal")),
              h.get("currency")),
          OrderStatus.valueOf(h.get("status")),
          h.get("itemId") == null ? null : new Item(h.get("itemId"), h.get("itemPayload")),
          h.get("lastError"),
          token(h, "claim"),
          millis(h.get("claimedAt")),
          millis(h.get("leaseExpiresAt")),
          Long.parseLong(h.get("fence")),
          token(h, "settled"),
          millis(h.get("updatedAt")),
          h.containsKey("failures") ? Integer.parseInt(h.get("failures")) : 0,
          millis(h.get("failedSince")));
    }

    private static ClaimId token(Map<String, String> h, String name) {
      String nonce = h.get(name + "Nonce");
      return nonce == null ? null : new ClaimId(Long.parseLong(h.get(name + "Fence")), nonce);
    }

    private static Instant millis(String epochMillis) {
      return epochMillis == null ? null : Instant.ofEpochMilli(Long.parseLong(epochMillis));
    }
  }

  @Test
  @DisplayName(
      "keys of layout 1 (the first release) are refused naming the upgrade, then upgraded with"
          + " upgradeLayout(true): nothing lost, every listing finds them, writes go on")
  void upgradesLayoutOne() {
    upgrades(1);
  }

  @Test
  @DisplayName(
      "keys of layout 2 are refused naming the upgrade, then upgraded with upgradeLayout(true):"
          + " every order reads as it did, replays and superseded writes are told apart as before,"
          + " every listing finds them, writes go on")
  void upgradesLayoutTwo() {
    upgrades(2);
  }

  private void upgrades(int layout) {
    String prefix = TestRedis.newPrefix("layout" + layout);
    OrderKeys keys = new OrderKeys(prefix, childTarget().get(0).equals("cluster"));
    long t0 = TestClock.START.toEpochMilli();
    String done = sid("done");
    String bare = sid("bare");
    String stuck = sid("stuck");
    String failed = sid("failed");
    String again = sid("again");
    String orphaned = sid("orphaned");
    List<String> all = List.of(done, bare, stuck, failed, again, orphaned);
    try (UnifiedJedis raw = raw()) {
      OlderLayout older = new OlderLayout(raw, keys, layout);
      ClaimId doneBy = older.claim(done, t0, t0 + 120_000);
      older.complete(done, doneBy, t0 + 1_000, "prov-done", "LPA:1$x");
      older.complete(bare, older.claim(bare, t0, t0 + 120_000), t0 + 1_000, "prov-bare", null);
      ClaimId stuckBy = older.claim(stuck, t0, t0 + 120_000);
      older.fail(failed, older.claim(failed, t0, t0 + 120_000), t0 + 2_000, "provider down");
      ClaimId failedBy = older.claim(again, t0, t0 + 1_000);
      older.fail(again, failedBy, t0 + 1_000, "timeout");
      older.claim(again, t0 + 2_000, t0 + 122_000); // claimed again after its failure
      ClaimId stale = older.claim(orphaned, t0, t0 + 1_000);
      ClaimId fresh = older.claim(orphaned, t0 + 2_000, t0 + 122_000);
      older.complete(orphaned, stale, t0 + 3_000, "prov-orphan-1", "LPA:orphan");
      older.complete(orphaned, stale, t0 + 3_000, "prov-orphan-2", null);
      older.complete(orphaned, fresh, t0 + 4_000, "prov-fresh", "LPA:fresh");
      Map<String, OrderRecord> before = new HashMap<>();
      for (String id : all) {
        before.put(id, older.read(id));
      }
      assertEquals(failedBy, before.get(again).settledBy(), "the fixture's own reading");
      int orphanEntries = raw.xrange(keys.orphans(orphaned), "-", "+").size();
      assertEquals(2, orphanEntries, "the older layout recorded the two stale completes' orphans");
      TestClock clock = new TestClock();
      clock.set(TestClock.START.plus(Duration.ofMinutes(10)));

      if (layout == 2) {
        refusesOlder(prefix, clock, layout); // no version key: the orders' marks say layout 2
        raw.set(keys.layout(), "2"); // as layout 2's store wrote it
      }
      refusesOlder(prefix, clock, layout);
      assertEquals(
          layout == 1 ? null : "2", raw.get(keys.layout()), "a refused start writes nothing");

      try (RedisOrderStore store =
          target(RedisOrderStore.builder())
              .keyPrefix(prefix)
              .clock(clock)
              .upgradeLayout(true)
              .build()) {
        assertEquals("3", raw.get(keys.layout()));
        for (String id : all) {
          OrderRecord expected = before.get(id);
          if (layout == 1 && id.equals(failed)) { // layout 1 kept no failure count
            expected =
                new OrderRecord(
                    expected.snapshot(),
                    expected.status(),
                    expected.item(),
                    expected.lastError(),
                    expected.claimId(),
                    expected.claimedAt(),
                    expected.leaseExpiresAt(),
                    expected.fence(),
                    expected.settledBy(),
                    expected.updatedAt(),
                    1,
                    Instant.ofEpochMilli(t0 + 2_000));
          }
          assertEquals(expected, store.get(id).orElseThrow(), "the upgrade kept " + id);
        }
        assertEquals(
            List.of(stuck, again).stream().sorted().toList(),
            store.stuckOrders(Duration.ZERO, null, 100).items().stream()
                .map(OrderRecord::sessionId)
                .sorted()
                .toList());
        List<OrderRecord> failing =
            store.failedOrders(1, OrderStoreAdmin.MAX_AGE, null, 100).items();
        assertEquals(List.of(failed), failing.stream().map(OrderRecord::sessionId).toList());
        assertEquals(1, failing.get(0).failures());
        assertEquals(Instant.ofEpochMilli(t0 + 2_000), failing.get(0).failedSince());
        List<Orphan> orphans = store.orphans(orphaned);
        assertEquals(2, orphans.size());
        assertEquals(
            orphans,
            store.unreconciledOrphans(null, 100).items().stream()
                .map(OrphanRecord::orphan)
                .toList(),
            "the unreconciled listing has the orphans the older layout recorded");

        // the tokens of the older layout settle as they would have: a replay is a replay, a
        // superseded write changes nothing, the current claim completes
        assertInstanceOf(
            WriteResult.Written.class,
            store.complete(done, doneBy, new Item("prov-done", "LPA:1$x")),
            "a replay of the complete that settled it");
        assertInstanceOf(
            WriteResult.Superseded.class,
            store.complete(again, failedBy, new Item("prov-late", null)),
            "the token that failed it, now superseded by the re-claim");
        assertEquals(before.get(again), store.get(again).orElseThrow());
        assertInstanceOf(WriteResult.Written.class, store.complete(stuck, stuckBy, ESIM));
        assertEquals(OrderStatus.PROVISIONED, store.get(stuck).orElseThrow().status());
        assertEquals(stuckBy, store.get(stuck).orElseThrow().settledBy());

        claimed(store.claim(snapshot(failed), LEASE));
        assertEquals(List.of(), store.failedOrders(1, OrderStoreAdmin.MAX_AGE, null, 100).items());
      }
      try (RedisOrderStore reopened = store(prefix, clock)) {
        assertEquals(OrderStatus.PROVISIONED, reopened.get(done).orElseThrow().status());
      }
    } finally {
      TestRedis.deleteKeys(prefix);
    }
  }

  @Test
  @DisplayName(
      "an extend, complete or fail answers the order as stored, whether this store, another or a"
          + " re-claim after a failure granted the claim, and after another store's extend")
  void writesAnswerTheOrderAsStored() {
    TestClock clock = new TestClock();
    String fresh = sid("fresh");
    String extended = sid("extended");
    String refailed = sid("refailed");
    String foreign = sid("foreign");
    String taken = sid("taken");
    String bare = sid("bare");
    try (RedisOrderStore a = store(clock);
        RedisOrderStore b = store(clock)) {
      Consumer<WriteResult> asStored =
          result ->
              assertEquals(
                  b.get(result.record().sessionId()).orElseThrow(),
                  result.record(),
                  "the answer is the order as stored");
      Consumer<WriteResult> writtenAsStored =
          result -> asStored.accept(assertInstanceOf(WriteResult.Written.class, result));
      ClaimId freshClaim = claimed(a.claim(snapshot(fresh), LEASE));
      ClaimId extendedClaim = claimed(a.claim(snapshot(extended), LEASE));
      ClaimId failing = claimed(a.claim(snapshot(refailed), LEASE));
      ClaimId foreignClaim = claimed(b.claim(snapshot(foreign), LEASE));
      ClaimId stale = claimed(a.claim(snapshot(taken), Duration.ofSeconds(1)));
      ClaimId bareClaim =
          claimed(a.claim(new OrderSnapshot(bare, "esim", 2, null, 5, "eur"), LEASE));
      clock.advance(Duration.ofSeconds(5));
      writtenAsStored.accept(a.fail(refailed, failing, "provider down"));
      writtenAsStored.accept(b.extend(extended, extendedClaim, LEASE));
      writtenAsStored.accept(a.extend(fresh, freshClaim, LEASE));
      clock.advance(Duration.ofSeconds(1));
      writtenAsStored.accept(a.extend(fresh, freshClaim, LEASE));
      ClaimId twice = claimed(a.claim(snapshot(refailed), LEASE));
      writtenAsStored.accept(a.fail(refailed, twice, "provider down again"));
      ClaimId again = claimed(a.claim(snapshot(refailed), LEASE));
      ClaimId current = claimed(b.claim(snapshot(taken), LEASE));
      clock.advance(Duration.ofSeconds(5));

      writtenAsStored.accept(a.complete(fresh, freshClaim, ESIM));
      writtenAsStored.accept(a.complete(extended, extendedClaim, new Item("prov-e", null)));
      writtenAsStored.accept(a.complete(refailed, again, ESIM));
      writtenAsStored.accept(a.complete(foreign, foreignClaim, ESIM));
      writtenAsStored.accept(a.complete(bare, bareClaim, ESIM));
      OrderRecord refailedNow = b.get(refailed).orElseThrow();
      assertEquals(2, refailedNow.failures());
      assertEquals("provider down again", refailedNow.lastError());
      WriteResult superseded = a.complete(taken, stale, ESIM);
      assertInstanceOf(WriteResult.Superseded.class, superseded);
      asStored.accept(superseded);
      writtenAsStored.accept(b.complete(taken, current, ESIM));
      writtenAsStored.accept(a.complete(fresh, freshClaim, ESIM)); // a replay
      asStored.accept(
          assertInstanceOf(WriteResult.Superseded.class, a.extend(fresh, freshClaim, LEASE)));
    }
  }

  @Test
  @DisplayName(
      "failed orders by count walk past the orders below the count in script runs that each look"
          + " at a bounded number, and page without skipping or repeating one")
  void failedByCountResumesAcrossBoundedRuns() {
    String prefix = TestRedis.newPrefix("budget");
    TestClock clock = new TestClock();
    try (RedisOrderStore store =
        target(RedisOrderStore.builder()).keyPrefix(prefix).clock(clock).lookBudget(3).build()) {
      List<String> twice = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        String id = sid("f" + i);
        clock.advance(Duration.ofSeconds(1));
        ClaimId first = claimed(store.claim(snapshot(id), LEASE));
        assertInstanceOf(WriteResult.Written.class, store.fail(id, first, "provider down"));
        if (i % 4 == 3) {
          ClaimId again = claimed(store.claim(snapshot(id), LEASE));
          assertInstanceOf(WriteResult.Written.class, store.fail(id, again, "down again"));
          twice.add(id);
        }
      }
      for (int pageSize : new int[] {1, 2, 100}) {
        List<String> listed = new ArrayList<>();
        String cursor = null;
        do {
          Page<OrderRecord> page = store.failedOrders(2, OrderStoreAdmin.MAX_AGE, cursor, pageSize);
          page.items().forEach(r -> listed.add(r.sessionId()));
          cursor = page.nextCursor();
        } while (cursor != null);
        assertEquals(twice, listed, "failed twice or more, pages of " + pageSize);
      }
    } finally {
      TestRedis.deleteKeys(prefix);
    }
  }

  @Test
  @DisplayName(
      "the listings page the same in a JVM whose locale writes other digits (their cursors are"
          + " index members, which the scripts write in ASCII digits)")
  void listingsPageTheSameInAnyLocale() {
    String prefix = TestRedis.newPrefix("locale");
    TestClock clock = new TestClock();
    Locale before = Locale.getDefault();
    try (RedisOrderStore store = store(prefix, clock)) {
      List<String> stuck = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String id = sid("stuck" + i);
        clock.advance(Duration.ofSeconds(1));
        claimed(store.claim(snapshot(id), LEASE));
        stuck.add(id);
      }
      String orphaned = stuck.get(0);
      clock.advance(LEASE);
      ClaimId owner = claimed(store.claim(snapshot(orphaned), LEASE));
      ClaimId stale = new ClaimId(owner.fence() - 1, ClaimId.newNonce());
      for (int i = 0; i < 3; i++) {
        clock.advance(Duration.ofSeconds(1));
        Item item = new Item("prov-late-" + i, null);
        assertInstanceOf(WriteResult.Superseded.class, store.complete(orphaned, stale, item));
      }
      stuck.remove(orphaned); // re-claimed: its lease is live again
      clock.advance(Duration.ofSeconds(1));
      Locale.setDefault(Locale.forLanguageTag("th-TH-u-nu-thai"));
      assertEquals("๑๒", String.format("%d", 12), "the locale writes Thai digits");

      List<String> listed = new ArrayList<>();
      String cursor = null;
      do {
        Page<OrderRecord> page = store.stuckOrders(Duration.ZERO, cursor, 1);
        page.items().forEach(r -> listed.add(r.sessionId()));
        cursor = page.nextCursor();
      } while (cursor != null);
      assertEquals(stuck, listed, "stuck orders, pages of 1");

      List<String> orphans = new ArrayList<>();
      do {
        Page<OrphanRecord> page = store.unreconciledOrphans(cursor, 1);
        page.items().forEach(r -> orphans.add(r.orphan().item().providerOrderId()));
        cursor = page.nextCursor();
      } while (cursor != null);
      assertEquals(
          List.of("prov-late-0", "prov-late-1", "prov-late-2"), orphans, "orphans, pages of 1");
    } finally {
      Locale.setDefault(before);
      TestRedis.deleteKeys(prefix);
    }
  }

  @Test
  @DisplayName(
      "leases that end before 1970, at it and after it list in time order, a page at a time (an"
          + " index member's instant is text whose byte order is time order)")
  void instantsAroundTheEpochListInTimeOrder() {
    String prefix = TestRedis.newPrefix("epoch");
    TestClock clock = new TestClock();
    try (RedisOrderStore store = store(prefix, clock)) {
      List<String> claimed = new ArrayList<>();
      for (Instant at :
          List.of(
              Instant.parse("1969-12-31T22:00:00Z"),
              Instant.parse("1969-12-31T23:57:59.999Z"),
              Instant.parse("1969-12-31T23:58:00Z"),
              Instant.parse("1970-01-01T00:00:00.001Z"),
              Instant.parse("1970-01-01T01:00:00Z"))) {
        clock.set(at); // each lease ends 2 minutes on: the third at the epoch itself
        String id = sid("epoch");
        claimed(store.claim(snapshot(id), LEASE));
        claimed.add(id);
      }
      clock.set(Instant.parse("1970-01-02T00:00:00Z"));
      List<String> listed = new ArrayList<>();
      String cursor = null;
      do { // at most a page per order and one more: a cursor that goes back fails, not hangs
        Page<OrderRecord> page = store.stuckOrders(Duration.ZERO, cursor, 1);
        page.items().forEach(r -> listed.add(r.sessionId()));
        cursor = page.nextCursor();
      } while (cursor != null && listed.size() <= claimed.size());
      assertEquals(claimed, listed, "stuck orders by lease end, pages of 1");
      assertEquals(
          claimed.subList(0, 3),
          store.stuckOrders(Duration.ofDays(1), null, 10).items().stream()
              .map(OrderRecord::sessionId)
              .toList(),
          "stuck for a day by 1970-01-02: the leases that ended by the epoch");
    } finally {
      TestRedis.deleteKeys(prefix);
    }
  }

  @Test
  @DisplayName(
      "index entries the orders no longer bear out (a hand edit, a deleted order) are passed over"
          + " by the listings")
  void staleIndexEntriesArePassedOver() {
    String prefix = TestRedis.newPrefix("stale");
    OrderKeys keys = new OrderKeys(prefix, childTarget().get(0).equals("cluster"));
    TestClock clock = new TestClock();
    String settled = sid("settled");
    String reclaimed = sid("reclaimed");
    String deleted = sid("deleted");
    try (UnifiedJedis raw = raw();
        RedisOrderStore store = store(prefix, clock)) {
      claimed(store.claim(snapshot(settled), LEASE));
      claimed(store.claim(snapshot(deleted), LEASE));
      ClaimId failing = claimed(store.claim(snapshot(reclaimed), LEASE));
      assertInstanceOf(WriteResult.Written.class, store.fail(reclaimed, failing, "down"));
      clock.advance(LEASE.multipliedBy(2));
      assertEquals(2, store.stuckOrders(Duration.ZERO, null, 10).items().size());
      assertEquals(1, store.failedOrders(1, Duration.ZERO, null, 10).items().size());

      raw.hset(keys.order(settled), Map.of("status", "PROVISIONED", "itemId", "prov-by-hand"));
      raw.hset(keys.order(reclaimed), "status", "PENDING");
      raw.del(keys.order(deleted));
      assertEquals(OrderStatus.PROVISIONED, store.get(settled).orElseThrow().status());
      assertEquals(OrderStatus.PENDING, store.get(reclaimed).orElseThrow().status());

      assertEquals(
          List.of(),
          store.stuckOrders(Duration.ZERO, null, 10).items().stream()
              .map(OrderRecord::sessionId)
              .toList(),
          "the settled and deleted orders' claim entries are passed over (and the edited claim"
              + " is not indexed)");
      assertEquals(List.of(), store.failedOrders(1, Duration.ZERO, null, 10).items());
      assertEquals(List.of(), store.failedOrders(1, OrderStoreAdmin.MAX_AGE, null, 10).items());
    } finally {
      TestRedis.deleteKeys(prefix);
    }
  }

  private void refusesOlder(String prefix, TestClock clock, int layout) {
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> store(prefix, clock));
    assertTrue(
        refused.getMessage().contains("layout " + layout + ",")
            && refused.getMessage().contains("schema migrate")
            && refused.getMessage().contains("upgradeLayout(true)"),
        refused.getMessage());
  }

  @Test
  @DisplayName(
      "a newer layout, or a version key holding something else, is refused; a version key lost"
          + " over orders of this layout is written again")
  void layoutVersionChecked() {
    String prefix = TestRedis.newPrefix("layout");
    OrderKeys keys = new OrderKeys(prefix, false);
    TestClock clock = new TestClock();
    try (UnifiedJedis raw = raw()) {
      String id = sid("kept");
      try (RedisOrderStore store = store(prefix, clock)) {
        claimed(store.claim(snapshot(id), LEASE));
      }
      assertEquals("3", raw.get(keys.layout()), "a new store writes its layout");

      raw.del(keys.layout()); // a restart without persistence, a FLUSHALL, an eviction
      try (RedisOrderStore store = store(prefix, clock)) {
        assertTrue(store.get(id).isPresent());
      }
      assertEquals("3", raw.get(keys.layout()), "the lost key is written again");

      raw.set(keys.layout(), "4");
      IllegalStateException newer =
          assertThrows(IllegalStateException.class, () -> store(prefix, clock));
      assertTrue(newer.getMessage().contains("layout 4, newer"), newer.getMessage());

      raw.set(keys.layout(), "banana");
      IllegalStateException other =
          assertThrows(IllegalStateException.class, () -> store(prefix, clock));
      assertTrue(other.getMessage().contains("not a layout version"), other.getMessage());
    } finally {
      TestRedis.deleteKeys(prefix);
    }
  }

  @Test
  @DisplayName("every operation still works when the script cache is flushed before it")
  void scriptFlushBetweenOperations() {
    TestClock clock = new TestClock();
    try (RedisOrderStore store = store(clock)) {
      String id = sid("flush");
      flushScripts();
      ClaimId slow = claimed(store.claim(snapshot(id), LEASE));
      String claimSha = LuaScript.load("claim").sha1();
      int[] cached = {0};
      eachMaster(jedis -> cached[0] += jedis.scriptExists(claimSha) ? 1 : 0);
      assertEquals(
          1, cached[0], "after NOSCRIPT the claim script is cached again on the node that ran it");
      flushScripts();
      assertInstanceOf(WriteResult.Written.class, store.extend(id, slow, LEASE));
      clock.advance(LEASE.plusSeconds(1));
      flushScripts();
      ClaimId fresh = claimed(store.claim(snapshot(id), LEASE));
      flushScripts();
      assertInstanceOf(WriteResult.Superseded.class, store.fail(id, slow, "late"));
      flushScripts();
      assertInstanceOf(WriteResult.Written.class, store.complete(id, fresh, ESIM));
      flushScripts();
      assertInstanceOf(
          WriteResult.Superseded.class, store.complete(id, slow, new Item("prov-late", null)));
      flushScripts();
      assertInstanceOf(
          WriteResult.Written.class, store.complete(id, fresh, ESIM), "a replay is Written again");
      flushScripts();
      assertInstanceOf(ClaimResult.Provisioned.class, store.claim(snapshot(id), LEASE));
      flushScripts();
      assertEquals(OrderStatus.PROVISIONED, store.get(id).orElseThrow().status());
      assertEquals(1, store.orphans(id).size());
    }
  }

  private void flushScripts() {
    eachMaster(jedis -> assertEquals("OK", jedis.scriptFlush()));
  }

  @Test
  @DisplayName(
      "an order lost by Redis and claimed again cannot be settled with a token from before the loss")
  void resurrectedOrderRejectsStaleToken() {
    TestClock clock = new TestClock();
    try (RedisOrderStore store = store(clock)) {
      String id = sid("lost");
      ClaimId before = claimed(store.claim(snapshot(id), LEASE));
      OrderKeys keys = new OrderKeys(PREFIX, false);
      raw().del(keys.order(id)); // what a restart without persistence or an eviction does
      ClaimId after = claimed(store.claim(snapshot(id), LEASE));
      assertEquals(before.fence(), after.fence(), "the fence starts over at 1 on a new record");
      assertNotEquals(before.nonce(), after.nonce());

      assertInstanceOf(
          WriteResult.Superseded.class, store.fail(id, before, "from before the loss"));
      WriteResult stale = store.complete(id, before, ESIM);
      assertInstanceOf(WriteResult.Superseded.class, stale);
      OrderRecord current = store.get(id).orElseThrow();
      assertEquals(OrderStatus.PENDING, current.status());
      assertEquals(after, current.claimId());
      List<Orphan> orphans = store.orphans(id);
      assertEquals(1, orphans.size());
      assertEquals(before, orphans.get(0).claimId());
    }
  }

  @Test
  @DisplayName(
      "session ids with braces, percent signs and any other characters each get an order of their own")
  void trickySessionIds() {
    TestClock clock = new TestClock();
    String run = ClaimId.newNonce().substring(0, 8);
    try (RedisOrderStore store = store(clock)) {
      Map<String, ClaimId> claimIds = new HashMap<>();
      for (String tricky : OrderKeysTest.TRICKY) {
        String id = run + tricky;
        OrderSnapshot snapshot =
            new OrderSnapshot(id, "p-]]..redis.call('flushall')--" + tricky, 1, null, 0, "EUR");
        claimIds.put(id, claimed(store.claim(snapshot, LEASE)));
      }
      for (String tricky : OrderKeysTest.TRICKY) {
        String id = run + tricky;
        OrderRecord record =
            store.get(id).orElseThrow(() -> new AssertionError("order '" + id + "' is missing"));
        assertEquals(id, record.sessionId());
        assertEquals("p-]]..redis.call('flushall')--" + tricky, record.snapshot().productId());
        assertEquals(1, record.fence(), "order '" + id + "' was claimed by another id's claim too");
        assertEquals(claimIds.get(id), record.claimId());
        assertInstanceOf(
            WriteResult.Written.class,
            store.complete(id, claimIds.get(id), new Item("p-" + tricky, tricky)));
        assertEquals(new Item("p-" + tricky, tricky), store.get(id).orElseThrow().item());
      }
      int[] hashes = {0};
      eachMaster(
          jedis ->
              hashes[0] +=
                  (int)
                      TestRedis.scan(jedis, PREFIX + "{" + OrderKeys.tag(run)).stream()
                          .filter(key -> !key.endsWith(":orphans") && !key.endsWith(":orphan-ids"))
                          .count());
      assertEquals(OrderKeysTest.TRICKY.size(), hashes[0], "one hash per session id");
    }
  }

  @Test
  @DisplayName(
      "a user's client runs every command as it is configured, a key preprocessor included: what"
          + " the scripts write, the reads find")
  void userClientKeyPreprocessorAppliesToEveryCommand() {
    UnifiedJedis own = raw();
    try {
      own.setKeyArgumentPreProcessor(
          key ->
              key instanceof String text
                  ? text + ":user"
                  : key instanceof byte[] bytes
                      ? (new String(bytes, StandardCharsets.UTF_8) + ":user")
                          .getBytes(StandardCharsets.UTF_8)
                      : key);
      RedisOrderStore store =
          RedisOrderStore.builder()
              .client(own)
              .keyPrefix(PREPROCESSED)
              .clock(new TestClock())
              .build();
      String id = sid("preprocessed");
      ClaimId claimId = claimed(store.claim(snapshot(id), LEASE));
      assertEquals(OrderStatus.PENDING, store.get(id).orElseThrow().status(), "the claim is read");
      assertInstanceOf(WriteResult.Written.class, store.complete(id, claimId, ESIM));
      assertEquals(OrderStatus.PROVISIONED, store.get(id).orElseThrow().status());
      assertTrue(
          own.exists(new OrderKeys(PREPROCESSED, false).order(id)),
          "the order lives under the preprocessed key, as every command of the client sees it");
      store.close();
    } finally {
      own.close();
    }
  }

  @Test
  @DisplayName("a client the user passes in stays open after the store is closed")
  void userClientStaysOpen() {
    UnifiedJedis own = raw();
    try {
      RedisOrderStore store =
          RedisOrderStore.builder().client(own).keyPrefix(PREFIX).clock(new TestClock()).build();
      String id = sid("own");
      claimed(store.claim(snapshot(id), LEASE));
      store.close();
      store.close();
      assertTrue(
          own.exists(new OrderKeys(PREFIX, false).order(id)), "the user's client must still work");
      IllegalStateException refused =
          assertThrows(
              IllegalStateException.class, () -> store.get(id), "a closed store refuses work");
      assertTrue(
          refused.getMessage().startsWith("the redis store is closed: cannot get order"),
          refused::getMessage);
    } finally {
      own.close();
    }
  }

  @Test
  @DisplayName(
      "a claim command run twice (a client retry after a lost reply) answers Claimed both times, once")
  void claimScriptIsIdempotentPerNonce() {
    String id = sid("retry");
    String key = new OrderKeys(PREFIX, false).order(id);
    String nonce = ClaimId.newNonce();
    LuaScript claim = LuaScript.load("claim");
    String tag = OrderKeys.tag(id);
    String packed = HashCodec.snapshot(snapshot(id));
    List<String> args = List.of("1000", "2000", nonce, packed, tag, packed);
    List<String> keys =
        List.of(
            key,
            key + ":claims-index",
            key + ":failed-index",
            key + ":mismatches",
            key + ":mismatches-index");
    try (UnifiedJedis raw = raw()) {
      List<?> first = (List<?>) claim.run(raw, keys, args);
      List<?> again =
          (List<?>) claim.run(raw, keys, List.of("1500", "2500", nonce, packed, tag, packed));
      assertEquals("claimed", first.get(0));
      assertEquals("claimed", again.get(0));
      assertEquals("1", raw.hget(key, "fence"));
      assertEquals("2000", raw.hget(key, "leaseExpiresAt"), "the retry changed nothing");
      List<?> other =
          (List<?>)
              claim.run(
                  raw, keys, List.of("1500", "2500", ClaimId.newNonce(), packed, tag, packed));
      assertEquals("inflight", other.get(0));
    }
  }

  @Test
  @DisplayName(
      "fences are exact up to 2^53 - 1, listed so when FAILED, and a claim past it is refused without a write")
  void fenceStaysBelow2To53() {
    TestClock clock = new TestClock();
    String id = sid("fence");
    String key = new OrderKeys(PREFIX, false).order(id);
    try (RedisOrderStore store = store(clock);
        UnifiedJedis raw = raw()) {
      ClaimId first = claimed(store.claim(snapshot(id), LEASE));
      assertInstanceOf(WriteResult.Written.class, store.fail(id, first, "boom"));
      raw.hset(key, "fence", "9007199254740990");
      ClaimId last = claimed(store.claim(snapshot(id), LEASE));
      assertEquals(9007199254740991L, last.fence());
      assertEquals(9007199254740991L, store.get(id).orElseThrow().fence());
      assertInstanceOf(WriteResult.Written.class, store.fail(id, last, "boom"));
      OrderRecord before = store.get(id).orElseThrow();
      assertTrue(
          allFailed(store).contains(before),
          () -> "the FAILED order of fence 2^53 - 1 must be listed as stored: " + before);
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> store.claim(snapshot(id), LEASE));
      assertTrue(e.getMessage().contains("2^53"), e.getMessage());
      assertEquals(before, store.get(id).orElseThrow(), "the refused claim wrote nothing");
    }
  }

  /** Every FAILED order under this class's prefix, by count, page after page. */
  private static List<OrderRecord> allFailed(OrderStoreAdmin admin) {
    List<OrderRecord> all = new ArrayList<>();
    String cursor = null;
    do {
      Page<OrderRecord> page =
          admin.failedOrders(1, OrderStoreAdmin.MAX_AGE, cursor, OrderStoreAdmin.MAX_PAGE_SIZE);
      all.addAll(page.items());
      cursor = page.nextCursor();
    } while (cursor != null);
    return all;
  }

  @Test
  @DisplayName(
      "a key under the prefix that this store did not write is reported, naming the key and the remedy")
  void foreignHash() {
    String id = sid("foreign");
    String key = new OrderKeys(PREFIX, false).order(id);
    try (RedisOrderStore store = store(new TestClock());
        UnifiedJedis raw = raw()) {
      raw.hset(key, "something", "else");
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.get(id));
      assertTrue(
          e.getMessage().contains(key) && e.getMessage().contains("keyPrefix"), e.getMessage());

      // an order of this layout whose snapshot lost a value (a hand edit)
      claimed(store.claim(snapshot(id + "-cut"), LEASE));
      String cut = new OrderKeys(PREFIX, false).order(id + "-cut");
      String packed = raw.hget(cut, "snapshot");
      raw.hset(cut, "snapshot", packed.substring(0, packed.lastIndexOf('\u001f')));
      IllegalStateException lost =
          assertThrows(IllegalStateException.class, () -> store.get(id + "-cut"));
      assertTrue(lost.getMessage().contains("holds 5 values, not 6"), lost.getMessage());
    }
  }

  @Test
  @DisplayName(
      "a forked JVM racing this one for 200 orders: one owner per claim, fences strictly increasing")
  void forkedJvmRace() throws Exception {
    int orders = 200;
    int rounds = 2;
    String sessions = sid("race-") + "-";
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java"));
    command.add("-cp");
    command.add(
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(ClaimRaceChild.class.getName());
    command.addAll(childTarget());
    command.add(PREFIX);
    command.add(sessions);
    command.add(Integer.toString(orders));
    command.add(Integer.toString(rounds));
    Process child =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try (RedisOrderStore store = target(RedisOrderStore.builder()).keyPrefix(PREFIX).build()) {
      BufferedReader fromChild =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<List<String>> childLines = new CompletableFuture<>();
      CompletableFuture<Void> ready = new CompletableFuture<>();
      Thread reader =
          new Thread(
              () -> {
                List<String> lines = new ArrayList<>();
                try {
                  for (String line; (line = fromChild.readLine()) != null; ) {
                    if (line.equals("READY")) {
                      ready.complete(null);
                    } else {
                      lines.add(line);
                    }
                  }
                  ready.complete(null);
                  childLines.complete(lines);
                } catch (Exception e) {
                  ready.completeExceptionally(e);
                  childLines.completeExceptionally(e);
                }
              });
      reader.setDaemon(true);
      reader.start();
      ready.get(60, TimeUnit.SECONDS);
      store.get(sessions + "warm-up");
      Writer toChild = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
      toChild.write("GO\n");
      toChild.flush();
      ByteArrayOutputStream mine = new ByteArrayOutputStream();
      try (PrintStream out = new PrintStream(mine, true, StandardCharsets.UTF_8)) {
        ClaimRaceChild.race(store, sessions, orders, rounds, out);
      }
      List<String> theirs = childLines.get(60, TimeUnit.SECONDS);
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child JVM did not exit");
      assertEquals(0, child.exitValue(), "the child JVM failed; see its standard error above");
      assertEquals("DONE", theirs.get(theirs.size() - 1), "the child did not finish: " + theirs);

      Map<String, TreeSet<Long>> fences = new HashMap<>();
      Map<String, TreeSet<Integer>> owners = new HashMap<>();
      int[] granted = new int[2];
      List<List<String>> sides =
          List.of(List.of(mine.toString(StandardCharsets.UTF_8).split("\n")), theirs);
      for (int side = 0; side < 2; side++) {
        for (String line : sides.get(side)) {
          if (!line.startsWith("C ")) {
            continue;
          }
          String[] f = line.split(" ");
          granted[side]++;
          assertEquals(
              "Written",
              f[4],
              "a claim's own extend was not Written, so another owner held the order: " + line);
          assertEquals(
              "Written",
              f[5],
              "a claim's own fail was not Written, so another owner held the order: " + line);
          owners.computeIfAbsent(f[1], k -> new TreeSet<>()).add(side);
          assertTrue(
              fences.computeIfAbsent(f[1], k -> new TreeSet<>()).add(Long.parseLong(f[2])),
              "fence " + f[2] + " of order " + f[1] + " was granted twice");
        }
      }
      for (int i = 0; i < orders; i++) {
        String id = sessions + i;
        OrderRecord record =
            store.get(id).orElseThrow(() -> new AssertionError("order " + id + " is missing"));
        TreeSet<Long> seen = fences.get(id);
        assertEquals(
            record.fence(),
            seen.size(),
            "order " + id + ": fence " + record.fence() + " but claims " + seen);
        assertEquals(record.fence(), seen.last(), "order " + id + ": claims " + seen);
      }
      long shared = owners.values().stream().filter(who -> who.size() == 2).count();
      System.out.println(
          "forkedJvmRace: claims granted to the test JVM "
              + granted[0]
              + ", to the child "
              + granted[1]
              + "; orders claimed by both JVMs "
              + shared
              + " of "
              + orders);
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
