package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.fencekit.admin.AdminProcess.Run;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spec.StoreSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin jar as a process against one backend: each subclass names its store as an operator
 * would ({@link #storeSpec()}); the orders are made through the library on a test clock an hour
 * behind, so their leases ran out long ago by the command's clock.
 */
abstract class AdminContract {

  @TempDir Path directory;

  /** The {@code --store} value for this backend. */
  abstract String storeSpec();

  /** The key prefix (Redis), or the default. */
  String keyPrefix() {
    return StoreSpec.DEFAULT_KEY_PREFIX;
  }

  /** A {@code --store} value of this backend where nothing answers. */
  abstract String unreachableSpec();

  /** A secret that must never be printed, part of {@link #unreachableSpec()}. */
  static final String SECRET = "hunter2-" + "s3cr%40t";

  final ManualClock clock =
      new ManualClock(Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS));

  Run admin(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--store");
    all.add(storeSpec());
    if (!keyPrefix().equals(StoreSpec.DEFAULT_KEY_PREFIX)) {
      all.add("--key-prefix");
      all.add(keyPrefix());
    }
    return AdminProcess.run(directory, Map.of(), all.toArray(String[]::new));
  }

  OrderStore library() {
    return StoreSpec.parse("test", storeSpec()).open(clock, true, keyPrefix());
  }

  static String session(String label) {
    return "cs_test_admin_" + label + "_" + UUID.randomUUID().toString().substring(0, 8);
  }

  static OrderSnapshot order(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1500, "eur");
  }

  /**
   * An order provisioned by its second attempt, the first attempt's late purchase kept as an
   * orphan.
   */
  ClaimId provisionedWithOrphan(OrderStore store, String sessionId) {
    ClaimId first =
        ((ClaimResult.Claimed) store.claim(order(sessionId), Duration.ofMinutes(2))).claimId();
    clock.advance(Duration.ofMinutes(3));
    ClaimId second =
        ((ClaimResult.Claimed) store.claim(order(sessionId), Duration.ofMinutes(2))).claimId();
    assertInstanceOf(
        WriteResult.Written.class,
        store.complete(sessionId, second, new Item("esim-B", "LPA:1$B")));
    assertInstanceOf(
        WriteResult.Superseded.class,
        store.complete(sessionId, first, new Item("esim-A", "LPA:1$A")));
    return first;
  }

  @Test
  void schemaMigrateThenCheckSaysCurrent() throws Exception {
    Run migrate = admin("schema", "migrate");
    assertEquals(0, migrate.exitCode(), migrate.toString());
    Run check = admin("schema", "check");
    assertEquals(0, check.exitCode(), check.toString());
    assertTrue(check.out().startsWith("current: "), check.toString());
    Run json = admin("schema", "check", "--json");
    assertEquals(0, json.exitCode(), json.toString());
    assertTrue(JsonParser.parseString(json.out()).getAsJsonObject().get("current").getAsBoolean());
  }

  @Test
  void ordersShowPrintsTheOrderAndItsOrphan() throws Exception {
    String sessionId = session("show");
    ClaimId first;
    try (OrderStore store = library()) {
      first = provisionedWithOrphan(store, sessionId);
    }
    Run table = admin("orders", "show", sessionId);
    assertEquals(0, table.exitCode(), table.toString());
    assertTrue(table.out().contains("status      PROVISIONED"), table.toString());
    assertTrue(table.out().contains("esim-B"), table.toString());
    assertTrue(table.out().contains("orphans     1 (1 not reconciled)"), table.toString());
    assertTrue(table.out().contains(first.toString()), table.toString());
    assertTrue(table.out().contains("esim-A"), table.toString());

    Run json = admin("orders", "show", sessionId, "--json");
    assertEquals(0, json.exitCode(), json.toString());
    JsonObject order = JsonParser.parseString(json.out()).getAsJsonObject();
    assertEquals(sessionId, order.get("sessionId").getAsString());
    assertEquals("PROVISIONED", order.get("status").getAsString());
    assertEquals(2, order.get("fence").getAsLong());
    assertEquals("esim-B", order.getAsJsonObject("item").get("providerOrderId").getAsString());
    JsonArray orphans = order.getAsJsonArray("orphans");
    assertEquals(1, orphans.size(), json.toString());
    assertEquals(first.toString(), orphans.get(0).getAsJsonObject().get("claimId").getAsString());
    assertFalse(orphans.get(0).getAsJsonObject().get("reconciled").getAsBoolean());
  }

  @Test
  void theSharedOptionsAreTakenOnEitherSideOfTheSubcommand() throws Exception {
    String sessionId = session("sides");
    try (OrderStore store = library()) {
      store.claim(order(sessionId), Duration.ofMinutes(2));
    }
    String[] prefix = {"--key-prefix", keyPrefix()};
    String[] store = {"--store", storeSpec()};
    List<List<String>> forms =
        List.of(
            concat(store, prefix, new String[] {"--json", "orders", "show", sessionId}),
            concat(
                new String[] {"orders"}, store, prefix, new String[] {"show", sessionId, "--json"}),
            concat(new String[] {"--json", "orders", "show", sessionId}, store, prefix));
    for (List<String> form : forms) {
      Run run = AdminProcess.run(directory, Map.of(), form.toArray(String[]::new));
      assertEquals(0, run.exitCode(), form + ": " + run);
      assertEquals(
          "PENDING",
          JsonParser.parseString(run.out()).getAsJsonObject().get("status").getAsString(),
          form + ": " + run);
    }
  }

  private static List<String> concat(String[]... parts) {
    List<String> all = new ArrayList<>();
    for (String[] part : parts) {
      all.addAll(List.of(part));
    }
    return all;
  }

  @Test
  void anUnknownOrderExitsOneNamingIt() throws Exception {
    admin("schema", "migrate");
    String sessionId = session("absent");
    Run run = admin("orders", "show", sessionId);
    assertEquals(1, run.exitCode(), run.toString());
    assertEquals("", run.out(), run.toString());
    assertTrue(run.err().contains("no order '" + sessionId + "'"), run.toString());
  }

  @Test
  void theStoreFromTheEnvironmentVariable() throws Exception {
    String sessionId = session("env");
    try (OrderStore store = library()) {
      store.claim(order(sessionId), Duration.ofMinutes(2));
    }
    Map<String, String> environment = new HashMap<>();
    environment.put("FENCEKIT_STORE", storeSpec());
    environment.put("FENCEKIT_REDIS_KEY_PREFIX", keyPrefix());
    Run run = AdminProcess.run(directory, environment, "orders", "show", sessionId);
    assertEquals(0, run.exitCode(), run.toString());
    assertTrue(run.out().contains("PENDING"), run.toString());
  }

  @Test
  void aStoreThatDoesNotAnswerExitsTwoWithoutItsPassword() throws Exception {
    Run run =
        AdminProcess.run(
            directory, Map.of(), "orders", "show", "cs_x", "--store", unreachableSpec());
    assertEquals(2, run.exitCode(), run.toString());
    assertFalse(run.out().contains("hunter2") || run.err().contains("hunter2"), run.toString());
    assertFalse(run.err().contains("s3cr"), run.toString());
    assertTrue(run.err().startsWith("fencekit-admin orders show: "), run.toString());
  }

  @Test
  void aBadCommandLineExitsSixtyFour() throws Exception {
    for (String[] args :
        List.of(
            new String[] {"orders", "show"},
            new String[] {"orders", "show", "cs_x", "--frobnicate"},
            new String[] {"orders", "stuck", "--older-than", "ten minutes"},
            new String[] {"orders", "show", "cs_x", "--store", "mysql://root:hunter2@db/shop"},
            new String[] {"nonsense"},
            new String[] {})) {
      Run run = AdminProcess.run(directory, Map.of("FENCEKIT_STORE", storeSpec()), args);
      assertEquals(64, run.exitCode(), String.join(" ", args) + ": " + run);
      assertFalse(run.err().contains("hunter2"), run.toString());
    }
    Run badStore =
        AdminProcess.run(directory, Map.of(), "orders", "show", "cs_x", "--store", "mysql://db");
    assertTrue(badStore.err().contains("--store (or FENCEKIT_STORE)"), badStore.toString());
  }
}
