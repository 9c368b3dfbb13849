package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.admin.AdminProcess.Run;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.Test;

/**
 * The operator's queries through the jar: orphans listed, paged, shown and reconciled; stuck and
 * failed orders found by age and count. The store may hold other tests' data: each test looks for
 * its own orders in what is listed.
 */
abstract class AdminQueriesContract extends AdminContract {

  private static List<JsonObject> items(Run run) {
    List<JsonObject> items = new ArrayList<>();
    for (JsonElement item :
        JsonParser.parseString(run.out()).getAsJsonObject().getAsJsonArray("items")) {
      items.add(item.getAsJsonObject());
    }
    return items;
  }

  private static Set<String> sessions(Run run) {
    Set<String> sessions = new HashSet<>();
    for (JsonObject item : items(run)) {
      sessions.add(item.get("sessionId").getAsString());
    }
    return sessions;
  }

  @Test
  void anOrphanIsListedThenReconciledOnceAndLeavesTheList() throws Exception {
    String sessionId = session("reconcile");
    ClaimId first;
    try (OrderStore store = library()) {
      first = provisionedWithOrphan(store, sessionId);
    }
    Run listed = admin("orphans", "list", "--all", "--json");
    assertEquals(1, listed.exitCode(), listed.toString());
    assertTrue(sessions(listed).contains(sessionId), listed.toString());
    Run table = admin("orphans", "list", "--all");
    assertTrue(table.out().contains(sessionId + "  " + first + "  esim-A"), table.toString());

    String claim = first.toString();
    Run reconciled =
        admin("orphans", "reconcile", sessionId, claim, "esim-A", "--note", "refunded re_123");
    assertEquals(0, reconciled.exitCode(), reconciled.toString());
    assertTrue(reconciled.out().startsWith("reconciled:"), reconciled.toString());
    Run again =
        admin(
            "orphans",
            "reconcile",
            sessionId,
            claim,
            "esim-A",
            "--note",
            "refunded re_123",
            "--json");
    assertEquals(0, again.exitCode(), again.toString());
    assertEquals(
        "reconciled",
        JsonParser.parseString(again.out()).getAsJsonObject().get("outcome").getAsString());
    Run other = admin("orphans", "reconcile", sessionId, claim, "esim-A", "--note", "delivered");
    assertEquals(1, other.exitCode(), other.toString());
    assertTrue(other.out().contains("refunded re_123"), other.toString());

    Run after = admin("orphans", "list", "--all", "--json");
    assertFalse(sessions(after).contains(sessionId), after.toString());
    Run shown = admin("orphans", "show", sessionId, claim, "esim-A", "--json");
    assertEquals(0, shown.exitCode(), shown.toString());
    JsonObject orphan =
        JsonParser.parseString(shown.out()).getAsJsonArray().get(0).getAsJsonObject();
    assertEquals("refunded re_123", orphan.get("note").getAsString());
    assertEquals("LPA:1$A", orphan.get("payload").getAsString());

    Run unknown = admin("orphans", "reconcile", sessionId, claim, "esim-Z", "--note", "x");
    assertEquals(1, unknown.exitCode(), unknown.toString());
  }

  @Test
  void pagesFollowedByCursorNeitherSkipNorRepeat() throws Exception {
    Set<String> mine = new HashSet<>();
    try (OrderStore store = library()) {
      for (int i = 0; i < 3; i++) {
        String sessionId = session("page" + i);
        provisionedWithOrphan(store, sessionId);
        mine.add(sessionId);
      }
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    for (int pages = 0; pages < 1000; pages++) {
      Run page =
          cursor == null
              ? admin("orphans", "list", "--page-size", "1", "--json")
              : admin("orphans", "list", "--page-size", "1", "--json", "--cursor", cursor);
      List<JsonObject> items = items(page);
      assertTrue(items.size() <= 1, page.toString());
      items.forEach(item -> seen.add(item.get("sessionId").getAsString()));
      JsonElement next = JsonParser.parseString(page.out()).getAsJsonObject().get("nextCursor");
      if (next.isJsonNull()) {
        break;
      }
      cursor = next.getAsString();
      if (seen.containsAll(mine)) {
        break;
      }
    }
    assertTrue(seen.containsAll(mine), seen + " lacks some of " + mine);
    assertEquals(new HashSet<>(seen).size(), seen.size(), "repeated: " + seen);
    Run bad = admin("orphans", "list", "--cursor", "not-a-cursor");
    assertEquals(64, bad.exitCode(), bad.toString());
  }

  @Test
  void aClaimOfAnotherCartIsListedAsAMismatchWithBothCarts() throws Exception {
    String sessionId = session("mismatch");
    try (OrderStore store = library()) {
      store.claim(order(sessionId), Duration.ofMinutes(2));
      assertInstanceOf(
          ClaimResult.Mismatch.class,
          store.claim(
              new OrderSnapshot(sessionId, "esim-world-10gb", 3, "ada@example.com", 8997, "eur"),
              Duration.ofMinutes(2)));
    }
    Run listed = admin("orders", "mismatches", "--all", "--json");
    assertEquals(1, listed.exitCode(), listed.toString());
    JsonObject found =
        items(listed).stream()
            .filter(item -> item.get("sessionId").getAsString().equals(sessionId))
            .findFirst()
            .orElse(null);
    assertNotNull(found, listed.toString());
    assertEquals("[\"product_id\",\"quantity\",\"amount_total\"]", found.get("fields").toString());
    assertEquals("esim-eu-5gb", found.getAsJsonObject("stored").get("productId").getAsString());
    assertEquals(
        "esim-world-10gb", found.getAsJsonObject("offered").get("productId").getAsString());
    assertFalse(listed.out().contains("ada@example.com"), listed.toString());
    Run table = admin("orders", "mismatches", "--all");
    assertTrue(
        table.out().contains("product_id,quantity,amount_total  esim-eu-5gb x 1, 1500 eur"),
        table.toString());
  }

  @Test
  void stuckAndFailedOrdersByAgeAndCount() throws Exception {
    String stuck = session("stuck");
    String failed = session("failed");
    try (OrderStore store = library()) {
      store.claim(order(stuck), Duration.ofMinutes(2));
      ClaimId claimId =
          ((ClaimResult.Claimed) store.claim(order(failed), Duration.ofMinutes(2))).claimId();
      assertInstanceOf(
          WriteResult.Written.class,
          store.fail(failed, claimId, "provider: 503 Service Unavailable"));
    }
    Run old = admin("orders", "stuck", "--older-than", "30m", "--all", "--json");
    assertEquals(1, old.exitCode(), old.toString());
    assertTrue(sessions(old).contains(stuck), old.toString());
    Run older = admin("orders", "stuck", "--older-than", "2h", "--all", "--json");
    assertFalse(sessions(older).contains(stuck), older.toString());
    Run table = admin("orders", "stuck", "--older-than", "30m", "--all");
    assertTrue(table.out().contains(stuck + "  PENDING"), table.toString());

    Run all = admin("orders", "failed", "--all", "--json");
    assertEquals(1, all.exitCode(), all.toString());
    JsonObject found =
        items(all).stream()
            .filter(item -> item.get("sessionId").getAsString().equals(failed))
            .findFirst()
            .orElse(null);
    assertNotNull(found, all.toString());
    assertEquals(1, found.get("failures").getAsInt());
    assertEquals("provider: 503 Service Unavailable", found.get("lastError").getAsString());
    assertFalse(
        sessions(admin("orders", "failed", "--min-failures", "2", "--all", "--json"))
            .contains(failed));
    assertTrue(
        sessions(admin("orders", "failed", "--older-than", "30m", "--all", "--json"))
            .contains(failed));
    assertFalse(
        sessions(admin("orders", "failed", "--older-than", "2h", "--all", "--json"))
            .contains(failed));
  }
}
