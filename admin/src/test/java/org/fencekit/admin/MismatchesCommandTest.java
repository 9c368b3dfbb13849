package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.spec.StoreSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code orders mismatches} in this JVM on a SQLite file: each refused claim listed once, oldest
 * first, with the fields that differ and both carts (never an e-mail), as a table or JSON, paged.
 */
class MismatchesCommandTest {

  @TempDir Path directory;

  private final ManualClock clock =
      new ManualClock(Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS));

  /** What a run printed and how it exited. */
  private record Run(int exit, String out, String err) {}

  private String spec() {
    return "sqlite:" + directory.resolve("orders.db");
  }

  private Run admin(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine line = AdminCommand.commandLine();
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--store", spec()));
    int exit = line.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  private OrderStore library() {
    return StoreSpec.parse("test", spec()).open(clock, true, StoreSpec.DEFAULT_KEY_PREFIX);
  }

  private static OrderSnapshot cart(String sessionId, String product, int quantity, long amount) {
    return new OrderSnapshot(sessionId, product, quantity, "ada@example.com", amount, "eur");
  }

  /** Order {@code sessionId} provisioned with one eSIM, then another cart refused under its id. */
  private void provisionedThenOtherCart(OrderStore store, String sessionId, OrderSnapshot other) {
    ClaimId claimId =
        ((ClaimResult.Claimed)
                store.claim(cart(sessionId, "esim-eu-5gb", 1, 1500), Duration.ofMinutes(2)))
            .claimId();
    store.complete(sessionId, claimId, new Item("prov-1", null));
    assertInstanceOf(ClaimResult.Mismatch.class, store.claim(other, Duration.ofMinutes(2)));
  }

  @Test
  void eachRefusedClaimIsListedOnceWithTheFieldsAndBothCartsAndNoEmail() {
    try (OrderStore store = library()) {
      provisionedThenOtherCart(
          store, "cs_test_first", cart("cs_test_first", "esim-world-10gb", 3, 8997));
      clock.advance(Duration.ofSeconds(1));
      provisionedThenOtherCart(
          store, "cs_test_second", cart("cs_test_second", "esim-eu-5gb", 1, 1900));
    }
    Run table = admin("orders", "mismatches");
    assertEquals(ExitCode.FOUND, table.exit(), table.toString());
    List<String> lines = table.out().lines().toList();
    assertTrue(lines.get(0).matches("SESSION +RECORDED AT +FIELDS +STORED +OFFERED"), table.out());
    assertTrue(lines.get(1).startsWith("cs_test_first "), table.out());
    assertTrue(
        lines
            .get(1)
            .contains(
                "product_id,quantity,amount_total  esim-eu-5gb x 1, 1500 eur  "
                    + "esim-world-10gb x 3, 8997 eur"),
        table.out());
    assertTrue(lines.get(2).startsWith("cs_test_second "), "oldest first: " + table.out());
    assertTrue(lines.get(2).contains("amount_total"), table.out());
    assertTrue(table.out().contains("2 mismatches"), table.out());
    assertFalse(table.out().contains("@"), "an e-mail is printed: " + table.out());

    Run json = admin("orders", "mismatches", "--json");
    assertEquals(ExitCode.FOUND, json.exit(), json.toString());
    JsonObject page = JsonParser.parseString(json.out()).getAsJsonObject();
    assertTrue(page.get("nextCursor").isJsonNull(), json.out());
    JsonArray items = page.getAsJsonArray("items");
    assertEquals(2, items.size(), json.out());
    JsonObject first = items.get(0).getAsJsonObject();
    assertEquals("cs_test_first", first.get("sessionId").getAsString());
    assertEquals(32, first.get("nonce").getAsString().length());
    assertEquals("[\"product_id\",\"quantity\",\"amount_total\"]", first.get("fields").toString());
    assertEquals("esim-eu-5gb", first.getAsJsonObject("stored").get("productId").getAsString());
    assertEquals(3, first.getAsJsonObject("offered").get("quantity").getAsInt());
    assertEquals(8997, first.getAsJsonObject("offered").get("amountTotal").getAsLong());
    assertFalse(json.out().contains("@"), json.out());
  }

  @Test
  void pagesFollowTheirCursorAndAnEmptyListingExitsZero() {
    try (OrderStore store = library()) {
      store.claim(cart("cs_test_none", "esim-eu-5gb", 1, 1500), Duration.ofMinutes(2));
    }
    Run none = admin("orders", "mismatches");
    assertEquals(ExitCode.OK, none.exit(), none.toString());
    assertEquals("no mismatches\n", none.out().replace("\r", ""));

    try (OrderStore store = library()) {
      for (int i = 0; i < 3; i++) {
        provisionedThenOtherCart(
            store, "cs_test_page" + i, cart("cs_test_page" + i, "esim-us-1gb", 2, 1200));
        clock.advance(Duration.ofSeconds(1));
      }
    }
    Run firstPage = admin("orders", "mismatches", "--page-size", "2");
    assertTrue(firstPage.out().contains("2 mismatches; more after --cursor "), firstPage.out());
    String cursor = firstPage.out().replaceAll("(?s).*more after --cursor (\\S+) .*", "$1").strip();
    Run rest = admin("orders", "mismatches", "--page-size", "2", "--cursor", cursor);
    assertEquals(ExitCode.FOUND, rest.exit(), rest.toString());
    assertTrue(rest.out().contains("cs_test_page2"), rest.out());
    assertFalse(rest.out().contains("cs_test_page0"), "a page repeated: " + rest.out());
    Run all = admin("orders", "mismatches", "--page-size", "1", "--all", "--json");
    assertEquals(
        3,
        JsonParser.parseString(all.out()).getAsJsonObject().getAsJsonArray("items").size(),
        all.out());
    Run bad = admin("orders", "mismatches", "--cursor", "not-a-cursor");
    assertEquals(ExitCode.USAGE, bad.exit(), bad.toString());
  }
}
