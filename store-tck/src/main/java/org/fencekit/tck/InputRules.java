package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.spi.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Bad input is refused before it reaches the backend, naming the argument; the longest and most
 * hostile valid values round-trip exactly. Ids start with {@code input_} and {@code value_}. Part
 * of {@link OrderStoreTck}.
 */
public abstract class InputRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  InputRules() {}

  /**
   * claim(null, lease) throws NullPointerException naming the snapshot.
   *
   * <p>If this fails, check that claim validates with ClaimRequest before touching the backend.
   */
  @Test
  @DisplayName("claim rejects a null snapshot, naming it")
  void input_claimNullSnapshot() {
    rejects("snapshot", "-", "claim(null, lease)", () -> store().claim(null, LEASE));
  }

  /**
   * A claim with a null, zero, negative, sub-millisecond or over-24-hour lease throws, naming the
   * lease, and creates nothing; 1 ms and exactly 24 h are accepted.
   *
   * <p>If this fails, check that claim validates with ClaimRequest (Validate.lease) first.
   */
  @Test
  @DisplayName(
      "claim rejects a lease that is null, not positive, under 1 ms or over 24 h, naming the lease, and writes nothing")
  void input_claimBadLease() {
    String sid = sid("bad-lease");
    for (Duration bad : badLeases()) {
      rejects("lease", sid, "claim with lease " + bad, () -> store().claim(snapshot(sid), bad));
      absent(sid, "a claim with lease " + bad);
    }
    claimed(store(), snapshot(sid), Duration.ofMillis(1));
    claimed(store(), snapshot(sid("max-lease")), OrderStore.MAX_LEASE);
  }

  static List<Duration> badLeases() {
    List<Duration> bad = new ArrayList<>();
    bad.add(null);
    bad.add(Duration.ZERO);
    bad.add(Duration.ofSeconds(-5));
    bad.add(Duration.ofNanos(999_999));
    bad.add(OrderStore.MAX_LEASE.plusMillis(1));
    bad.add(Duration.ofDays(365));
    return bad;
  }

  /**
   * An extend with a null, zero, negative, sub-millisecond or over-24-hour lease throws, naming the
   * lease, and changes nothing.
   *
   * <p>If this fails, check that extend validates with WriteRequest.Extend first.
   */
  @Test
  @DisplayName(
      "extend rejects a lease that is null, not positive, under 1 ms or over 24 h, naming the lease, and changes nothing")
  void input_extendBadLease() {
    String sid = sid("extend-bad-lease");
    ClaimId claimId = claimed(sid);
    OrderRecord before = record(sid, claimId);
    clock.advance(Duration.ofSeconds(1));
    for (Duration bad : badLeases()) {
      rejects("lease", sid, "extend with lease " + bad, () -> store().extend(sid, claimId, bad));
    }
    unchanged(before, sid, claimId, "extends with bad leases");
  }

  /**
   * complete with a null item throws NullPointerException naming the item and changes nothing.
   *
   * <p>If this fails, check that complete validates with WriteRequest.Complete first.
   */
  @Test
  @DisplayName("complete rejects a null item, naming it, and changes nothing")
  void input_completeNullItem() {
    String sid = sid("null-item");
    ClaimId claimId = claimed(sid);
    OrderRecord before = record(sid, claimId);
    rejects("item", sid, "complete with a null item", () -> store().complete(sid, claimId, null));
    unchanged(before, sid, claimId, "a complete with a null item");
    orphansAre(List.of(), sid, claimId, "no orphan from a rejected input");
  }

  /**
   * fail with a null, empty, blank, over-long or NUL-carrying error throws naming the error and
   * changes nothing.
   *
   * <p>If this fails, check that fail validates with WriteRequest.Fail first.
   */
  @Test
  @DisplayName("fail rejects a null, blank or over-long error, naming it, and changes nothing")
  void input_failBadError() {
    String sid = sid("bad-error");
    ClaimId claimId = claimed(sid);
    OrderRecord before = record(sid, claimId);
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.add("");
    bad.add(" \n\t ");
    bad.add("x".repeat(Validate.MAX_ERROR_LENGTH + 1));
    bad.add("nul\0inside");
    for (String error : bad) {
      rejects(
          "error", sid, "fail with error " + quote(error), () -> store().fail(sid, claimId, error));
    }
    unchanged(before, sid, claimId, "fails with bad errors");
  }

  /**
   * complete, fail and extend with a null token throw NullPointerException naming claimId and
   * change nothing.
   *
   * <p>If this fails, check that every write validates with WriteRequest first.
   */
  @Test
  @DisplayName("complete, fail and extend reject a null token, naming claimId, and change nothing")
  void input_nullToken() {
    String sid = sid("null-token");
    ClaimId claimId = claimed(sid);
    OrderRecord before = record(sid, claimId);
    rejects("claimId", sid, "complete with a null token", () -> store().complete(sid, null, ESIM));
    rejects("claimId", sid, "fail with a null token", () -> store().fail(sid, null, "declined"));
    rejects("claimId", sid, "extend with a null token", () -> store().extend(sid, null, LEASE));
    unchanged(before, sid, claimId, "writes with a null token");
    orphansAre(List.of(), sid, claimId, "no orphan from a rejected input");
  }

  /**
   * Every method given a bad session id throws naming sessionId: complete, fail, extend, get and
   * orphans directly, claim through its snapshot.
   */
  void badSessionId(String bad, String why) {
    ClaimId claimId = new ClaimId(1, ClaimId.newNonce());
    rejects("sessionId", bad, "a snapshot with " + why, () -> snapshot(bad));
    rejects("sessionId", bad, "complete with " + why, () -> store().complete(bad, claimId, ESIM));
    rejects("sessionId", bad, "fail with " + why, () -> store().fail(bad, claimId, "declined"));
    rejects("sessionId", bad, "extend with " + why, () -> store().extend(bad, claimId, LEASE));
    rejects("sessionId", bad, "get with " + why, () -> store().get(bad));
    rejects("sessionId", bad, "orphans with " + why, () -> store().orphans(bad));
  }

  /**
   * A null session id is rejected by every method, naming sessionId.
   *
   * <p>If this fails, check that every method validates the session id (Validate.sessionId or a
   * WriteRequest) before touching the backend.
   */
  @Test
  @DisplayName("every method rejects a null session id, naming sessionId")
  void input_nullSessionId() {
    badSessionId(null, "a null session id");
  }

  /**
   * An empty or blank session id is rejected by every method, naming sessionId.
   *
   * <p>If this fails, check that every method validates the session id first.
   */
  @Test
  @DisplayName("every method rejects a blank session id, naming sessionId")
  void input_blankSessionId() {
    badSessionId("", "an empty session id");
    badSessionId("   ", "a blank session id");
  }

  /**
   * A session id of 256 characters is rejected by every method, and nothing is stored under its
   * first 255 characters (a backend that truncates would merge two orders).
   *
   * <p>If this fails, check that every method validates the session id first.
   */
  @Test
  @DisplayName(
      "every method rejects a session id over 255 characters, naming sessionId, and stores nothing")
  void input_longSessionId() {
    String prefix = sid("long-");
    String bad = prefix + "x".repeat(256 - prefix.length());
    badSessionId(bad, "a session id of 256 characters");
    absent(bad.substring(0, 255), "calls with a 256-character session id");
  }

  /**
   * A session id with a control character (newline, tab, DEL, U+0085) is rejected by every method,
   * and nothing is stored under the id without it.
   *
   * <p>If this fails, check that every method validates the session id first.
   */
  @Test
  @DisplayName("every method rejects a session id with control characters, naming sessionId")
  void input_controlCharSessionId() {
    String base = sid("ctl");
    for (String control : List.of("\n", "\t", "\u007f", "\u0085", "\r")) {
      badSessionId(
          base + control + "x",
          "a session id containing U+" + String.format("%04X", (int) control.charAt(0)));
    }
    absent(base + "x", "calls with control characters in the session id");
  }

  /**
   * A snapshot with quantity below 1 cannot be built; the message names quantity; nothing is
   * written.
   *
   * <p>If this fails, check OrderSnapshot's validation (store-api).
   */
  @Test
  @DisplayName("a snapshot with quantity below 1 is rejected, naming quantity")
  void input_badQuantity() {
    String sid = sid("quantity");
    rejects(
        "quantity", sid, "quantity 0", () -> new OrderSnapshot(sid, "esim", 0, null, 100, "usd"));
    rejects(
        "quantity", sid, "quantity -1", () -> new OrderSnapshot(sid, "esim", -1, null, 100, "usd"));
    absent(sid, "rejected snapshots");
  }

  /**
   * A snapshot with a negative amountTotal cannot be built; zero (a free order) is accepted.
   *
   * <p>If this fails, check OrderSnapshot's validation and that the backend stores 0.
   */
  @Test
  @DisplayName(
      "a snapshot with a negative amountTotal is rejected, naming amountTotal; zero is accepted")
  void input_badAmount() {
    String sid = sid("amount");
    rejects(
        "amountTotal",
        sid,
        "amountTotal -1",
        () -> new OrderSnapshot(sid, "esim", 1, null, -1, "usd"));
    absent(sid, "a rejected snapshot");
    OrderSnapshot free = new OrderSnapshot(sid, "esim", 1, null, 0, "usd");
    ClaimId claimId = claimed(store(), free, LEASE);
    assertEquals(
        free, record(sid, claimId).snapshot(), says("a free order's snapshot", sid, claimId));
  }

  /**
   * A snapshot whose currency is null, not three characters, or not letters cannot be built.
   *
   * <p>If this fails, check OrderSnapshot's validation (Validate.currency).
   */
  @Test
  @DisplayName("a snapshot whose currency is not three letters is rejected, naming currency")
  void input_badCurrency() {
    String sid = sid("currency");
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.add("");
    bad.add("us");
    bad.add("usdt");
    bad.add("u5d");
    bad.add("us ");
    for (String currency : bad) {
      rejects(
          "currency",
          sid,
          "currency " + quote(currency),
          () -> new OrderSnapshot(sid, "esim", 1, null, 100, currency));
    }
    absent(sid, "rejected snapshots");
  }

  /**
   * A snapshot without productId (null or blank) cannot be built.
   *
   * <p>If this fails, check OrderSnapshot's validation.
   */
  @Test
  @DisplayName("a snapshot without a product id is rejected, naming productId")
  void input_badProductId() {
    String sid = sid("product");
    rejects(
        "productId",
        sid,
        "a null productId",
        () -> new OrderSnapshot(sid, null, 1, null, 100, "usd"));
    rejects(
        "productId",
        sid,
        "a blank productId",
        () -> new OrderSnapshot(sid, " ", 1, null, 100, "usd"));
    absent(sid, "rejected snapshots");
  }

  /**
   * A snapshot without a customer email is valid; the store keeps the null (not "" or "null").
   *
   * <p>If this fails, check that the backend stores a missing email as SQL NULL or an absent field
   * and reads it back as null.
   */
  @Test
  @DisplayName("a snapshot without a customer email is accepted, and the null kept")
  void input_nullEmailAccepted() {
    String sid = sid("no-email");
    OrderSnapshot anonymous = new OrderSnapshot(sid, "esim", 2, null, 100, "EUR");
    ClaimId claimId = claimed(store(), anonymous, LEASE);
    OrderRecord stored = record(sid, claimId);
    assertNull(
        stored.snapshot().customerEmail(),
        says("the customer email must read back as null", sid, claimId, stored));
    assertEquals(anonymous, stored.snapshot(), says("the snapshot", sid, claimId, stored));
  }

  /**
   * Every bounded input at exactly its limit is accepted and round-trips, and one more is refused
   * naming it: a session id (every method), product id and provider order id of 255 chars, a
   * customer email of 320, an error of 8,192, a payload of 65,536, and a lease of exactly 1 ms and
   * 24 h (1 ms less than the one and 1 ms or 1 ns more than the other refused). The longest values
   * end in a non-ASCII letter.
   *
   * <p>If this fails, check every size in the store's own checks and in the backend's columns
   * against the contract's limits: "at most N" means N is accepted (a {@code >=} where {@code >} is
   * meant refuses the limit; a column of N - 1, or of N bytes, cannot hold it), and N + 1 is
   * refused before anything reaches the backend.
   */
  @Test
  @DisplayName(
      "every bounded input accepts exactly its limit and refuses one more, naming the argument")
  void input_exactLimits() {
    String sid = longest(sid("limit"), Validate.MAX_ID_LENGTH);
    String over = sid + "x";
    String productId = longest("product", Validate.MAX_ID_LENGTH);
    String email = longest("@example.com", Validate.MAX_EMAIL_LENGTH);
    OrderSnapshot limits = new OrderSnapshot(sid, productId, 1, email, 0, "usd");
    rejects("sessionId", over, "a snapshot with a 256-char session id", () -> snapshot(over));
    rejects(
        "productId",
        sid,
        "a snapshot with a 256-char product id",
        () -> new OrderSnapshot(sid, productId + "x", 1, null, 0, "usd"));
    rejects(
        "customerEmail",
        sid,
        "a snapshot with a 321-char email",
        () -> new OrderSnapshot(sid, "esim", 1, "x" + email, 0, "usd"));
    String providerOrderId = longest("prov", Validate.MAX_ID_LENGTH);
    String payload = longest("payload", Validate.MAX_PAYLOAD_LENGTH);
    rejects(
        "providerOrderId",
        sid,
        "an item with a 256-char provider order id",
        () -> new Item(providerOrderId + "x", null));
    rejects(
        "payload", sid, "an item with a 65,537-char payload", () -> new Item("p", payload + "x"));
    Duration under = Duration.ofMillis(1).minusNanos(1);
    for (Duration bad :
        List.of(under, OrderStore.MAX_LEASE.plusNanos(1), OrderStore.MAX_LEASE.plusMillis(1))) {
      rejects("lease", sid, "claim with lease " + bad, () -> store().claim(limits, bad));
    }
    absent(sid, "refused claims");
    ClaimId first = claimed(store(), limits, Duration.ofMillis(1));
    String error = longest("error", Validate.MAX_ERROR_LENGTH);
    ClaimId unknown = new ClaimId(1, ClaimId.newNonce());
    OrderRecord before = record(sid, first);
    rejects(
        "error", sid, "fail with an 8,193-char error", () -> store().fail(sid, first, error + "x"));
    for (Duration bad : List.of(under, OrderStore.MAX_LEASE.plusNanos(1))) {
      rejects("lease", sid, "extend with lease " + bad, () -> store().extend(sid, first, bad));
    }
    rejects("sessionId", over, "get of a 256-char id", () -> store().get(over));
    rejects("sessionId", over, "orphans of a 256-char id", () -> store().orphans(over));
    rejects("sessionId", over, "extend of a 256-char id", () -> store().extend(over, first, LEASE));
    rejects("sessionId", over, "fail of a 256-char id", () -> store().fail(over, first, "x"));
    rejects(
        "sessionId",
        over,
        "complete of a 256-char id",
        () -> store().complete(over, unknown, ESIM));
    unchanged(before, sid, first, "refused writes");
    OrderRecord extended =
        extendWritten(sid, first, OrderStore.MAX_LEASE, "an extend by exactly 24 h");
    assertEquals(
        now().plus(OrderStore.MAX_LEASE),
        extended.leaseExpiresAt(),
        says("the 24-hour extend", sid, first, extended));
    extendWritten(sid, first, Duration.ofMillis(1), "an extend by exactly 1 ms");
    OrderRecord failed = failWritten(sid, first, error, "a fail with an 8,192-char error");
    assertEquals(error, failed.lastError(), says("the longest error", sid, first, failed));
    ClaimId second = claimed(store(), limits, OrderStore.MAX_LEASE);
    Item longest = new Item(providerOrderId, payload);
    completeSuperseded(sid, first, longest, "a stale complete with the longest item");
    completeWritten(sid, second, longest, "a complete with the longest item");
    OrderRecord stored = record(sid, second);
    assertEquals(limits, stored.snapshot(), says("the longest snapshot", sid, second, stored));
    assertEquals(longest, stored.item(), says("the longest item", sid, second, stored));
    assertEquals(error, stored.lastError(), says("the longest error", sid, second, stored));
    orphansAre(List.of(new Orphan(sid, first, longest, now())), sid, first, "the longest orphan");
  }

  /** {@code start}, then 'é' up to {@code length} chars (ASCII start, a letter of two bytes). */
  static String longest(String start, int length) {
    return start + "é".repeat(length - start.length());
  }

  /**
   * A session id of exactly 255 characters with non-ASCII letters is accepted, stored under its
   * full value, and distinct from one that differs in the last character.
   *
   * <p>If this fails, check the key column's size is in characters (not bytes) and holds 255.
   */
  @Test
  @DisplayName(
      "a session id of exactly 255 characters, non-ASCII included, is accepted and round-trips")
  void value_longestSessionId() {
    String prefix = sid("longest-") + "-é-ü-";
    String sid = prefix + "ß".repeat(255 - prefix.length() - 1) + "a";
    String sibling = sid.substring(0, 254) + "b";
    assertEquals(255, sid.length());
    ClaimId claimId = claimed(sid);
    assertEquals(
        snapshot(sid),
        record(sid, claimId).snapshot(),
        says("the 255-character order", sid, claimId));
    assertTrue(
        store().get(sibling).isEmpty(),
        says(
            "an id differing in its last character is another order",
            sibling,
            claimId,
            store().get(sibling).orElse(null)));
    assertEquals(1, claimed(sibling).fence(), says("the sibling's first claim", sibling, null));
  }

  /**
   * Ids and texts with quotes, braces, semicolons, backslashes, newlines, SQL and Lua syntax, and
   * characters outside the BMP round-trip unchanged through claim, complete, fail, orphans and get:
   * values travel as bound parameters and script arguments, never spliced.
   *
   * <p>If this fails, check that no value is concatenated into SQL, Lua or a key pattern, and that
   * text columns are UTF-8 and unlimited (or large enough).
   */
  @Test
  @DisplayName(
      "texts with quotes, braces, newlines and non-ASCII round-trip unchanged (values are bound, never spliced)")
  void value_hostileTexts() {
    String sid = sid("o'r\"d;e%r_{x}]]\\--🙂");
    OrderSnapshot hostile =
        new OrderSnapshot(
            sid,
            "prod'uct\"); DROP TABLE orders; --",
            7,
            "o'brien+{tag}@example.com",
            123_456_789_012L,
            "Eur");
    ClaimId first = claimed(store(), hostile, LEASE);
    String error = "line 1: 'quoted' \"double\"\nline 2: ]] .. redis.call('FLUSHALL') --[[ 🙂\t\\";
    OrderRecord failed = failWritten(sid, first, error, "a fail with a hostile error");
    assertEquals(error, failed.lastError(), says("the error as fail answered", sid, first, failed));
    assertEquals(error, record(sid, first).lastError(), says("the error as stored", sid, first));
    ClaimId second = claimed(store(), hostile, LEASE);
    Item orphaned = new Item("prov'}{\"1", "%s %d ' \" \\n\n\u2028 🙂 ]]");
    Item item = new Item("prov-ok-{" + sid + "}", "{\"json\": \"yes\", \"quote\": \"'\"}\r\n");
    completeSuperseded(sid, first, orphaned, "a stale complete with a hostile item");
    OrderRecord done = completeWritten(sid, second, item, "a complete with a hostile item");
    assertEquals(item, done.item(), says("the item as complete answered", sid, second, done));
    OrderRecord stored = record(sid, second);
    assertEquals(hostile, stored.snapshot(), says("the snapshot as stored", sid, second, stored));
    assertEquals(item, stored.item(), says("the item as stored", sid, second, stored));
    assertEquals(error, stored.lastError(), says("the error as stored", sid, second, stored));
    orphansAre(
        List.of(new Orphan(sid, first, orphaned, now())), sid, first, "the orphan as stored");
  }

  /**
   * Session ids and provider order ids holding the characters key layouts, listings and patterns
   * use ({@code : | { } / % * ? [ ]}, spaces, quotes and non-ASCII letters) are orders like any
   * other: for each character, an id, the id followed by the character and more, and one that
   * starts with it are three orders, each claimed with fence 1, claimed again with fence 2,
   * extended, failed, given an orphan of its own, read back with its own snapshot, and listed with
   * exactly its own orphans.
   *
   * <p>If this fails, check that the store keys each order by its whole session id, never splits an
   * id on a character or matches it as a pattern (a Redis SCAN or KEYS pattern, a SQL LIKE, a hash
   * tag inside braces), and that orphans are looked up by the exact session id, not a key prefix.
   */
  @Test
  @DisplayName(
      "ids with the characters key layouts use (colon, bar, braces, slash, %, *, space, quotes, non-ASCII) are ids like any other")
  void value_layoutCharactersInIds() {
    withLayoutCharacters(suite, this::layoutCharactersInIds);
  }

  private void layoutCharactersInIds(List<String> characters) {
    List<String> ids = new ArrayList<>();
    for (String c : characters) {
      String base = sid("layout");
      ids.addAll(List.of(base, base + c + "x", c + base + c));
    }
    List<ClaimId> stale = new ArrayList<>();
    for (String id : ids) {
      ClaimId first = claimed(id);
      assertEquals(1, first.fence(), says("the first claim of a new order has fence 1", id, first));
      stale.add(first);
    }
    clock.advance(LEASE);
    List<ClaimId> fresh = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      ClaimId claimId = claimed(id);
      assertEquals(2, claimId.fence(), says("the second claim of the order", id, claimId));
      fresh.add(claimId);
      extendWritten(id, claimId, LEASE, "the extend");
      completeSuperseded(id, stale.get(i), layoutItem(characters, i), "the stale complete");
      failWritten(id, claimId, "declined " + id, "the fail");
    }
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      OrderRecord stored = record(id, fresh.get(i));
      assertEquals(snapshot(id), stored.snapshot(), says("its own snapshot", id, fresh.get(i)));
      assertEquals(OrderStatus.FAILED, stored.status(), says("its own fail", id, fresh.get(i)));
      assertEquals("declined " + id, stored.lastError(), says("its own error", id, fresh.get(i)));
      orphansAre(
          List.of(new Orphan(id, stale.get(i), layoutItem(characters, i), now())),
          id,
          stale.get(i),
          "exactly its own orphan");
    }
  }

  /** The characters key layouts, cursors and patterns use, and non-ASCII letters. */
  static final List<String> LAYOUT_CHARACTERS =
      List.of(
          ":", "|", "{", "}", "{t}", "/", "%", "%s", "*", "?", "[a]", " ", "'", "\"", "\\", "é",
          "日本");

  /**
   * Runs a layout rule on the layout characters this run puts in ids: all of them, or {@link
   * OrderStoreTck#layoutCharacters()} of them drawn at random with {@link OrderStoreTck#seed()} (in
   * their order in the list), a failure then naming them and the seed that draws them again. Where
   * a configuration draws a few, another of the same store runs them all.
   */
  static void withLayoutCharacters(OrderStoreTck suite, Consumer<List<String>> rule) {
    int count = suite.layoutCharacters();
    if (count >= LAYOUT_CHARACTERS.size()) {
      rule.accept(LAYOUT_CHARACTERS);
      return;
    }
    long seed = suite.seed();
    List<String> characters = layoutCharacters(count, seed);
    try {
      rule.accept(characters);
    } catch (AssertionError e) {
      throw new AssertionError(
          "with the layout characters "
              + characters
              + ", "
              + count
              + " of "
              + LAYOUT_CHARACTERS.size()
              + " drawn with seed "
              + seed
              + " (-Dfencekit.tck.seed="
              + seed
              + " draws them again): "
              + e.getMessage(),
          e);
    }
  }

  /** {@code count} of the layout characters (at least one) drawn with {@code seed}, in order. */
  static List<String> layoutCharacters(int count, long seed) {
    List<Integer> drawn = new ArrayList<>();
    for (int i = 0; i < LAYOUT_CHARACTERS.size(); i++) {
      drawn.add(i);
    }
    Collections.shuffle(drawn, new Random(seed));
    return drawn.subList(0, Math.min(Math.max(count, 1), drawn.size())).stream()
        .sorted()
        .map(LAYOUT_CHARACTERS::get)
        .toList();
  }

  /**
   * An item whose provider order id holds the layout character of the {@code i}-th id (three ids
   * per character, as the layout rules make them).
   */
  static Item layoutItem(List<String> characters, int i) {
    String c = characters.get(i / 3);
    return new Item("prov" + c + i + c, "payload " + c);
  }

  /**
   * The largest payload (64 Ki chars) and error (8 Ki chars) are accepted and round-trip; a null
   * payload reads back as null, not as an empty string.
   *
   * <p>If this fails, check the payload and error columns hold the documented maximum and that a
   * null payload is stored as null.
   */
  @Test
  @DisplayName("the largest payload and error round-trip, and a null payload stays null")
  void value_largestValues() {
    String sid = sid("largest");
    ClaimId first = claimed(sid);
    String error = "e".repeat(Validate.MAX_ERROR_LENGTH - 1) + "é";
    failWritten(sid, first, error, "a fail with the longest error");
    assertEquals(error, record(sid, first).lastError(), says("the longest error", sid, first));
    ClaimId second = claimed(sid);
    Item big =
        new Item("p".repeat(Validate.MAX_ID_LENGTH), "ü".repeat(Validate.MAX_PAYLOAD_LENGTH));
    completeSuperseded(sid, first, big, "a stale complete with the largest item");
    completeWritten(sid, second, ESIM_3, "a complete with a null payload");
    OrderRecord stored = record(sid, second);
    assertEquals(
        ESIM_3, stored.item(), says("a null payload must read back as null", sid, second, stored));
    orphansAre(List.of(new Orphan(sid, first, big, now())), sid, first, "the largest orphan");
  }
}
