package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.fencekit.admin.AdminProcess.Run;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * {@code schema check} and {@code schema migrate} on Redis keys the first release wrote (key layout
 * 1: an order's hash and nothing else, no version key): the check says what to run and changes
 * nothing, queries refuse, the migrate indexes the order, and the listings find it afterwards.
 */
class RedisUpgradeIT {

  @RegisterExtension static final TestRedis.ClassKeys REDIS = TestRedis.node("upgrade");

  @TempDir Path directory;

  private Run admin(String... args) throws Exception {
    String[] all = new String[args.length + 4];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--store";
    all[args.length + 1] = REDIS.address();
    all[args.length + 2] = "--key-prefix";
    all[args.length + 3] = REDIS.prefix();
    return AdminProcess.run(directory, Map.of(), all);
  }

  @Test
  void aFirstReleaseOrderIsReportedThenMigratedAndListed() throws Exception {
    long claimed = Instant.now().minus(Duration.ofHours(1)).toEpochMilli();
    String order = REDIS.prefix() + "{cs_test_v1}";
    try (RedisClient raw = RedisClient.create(URI.create(REDIS.address()))) {
      // the hash claim.lua of the first release wrote for a new order
      raw.hset(
          order,
          Map.ofEntries(
              Map.entry("sessionId", "cs_test_v1"),
              Map.entry("productId", "esim-eu-5gb"),
              Map.entry("quantity", "1"),
              Map.entry("amountTotal", "1500"),
              Map.entry("currency", "eur"),
              Map.entry("status", "PENDING"),
              Map.entry("fence", "1"),
              Map.entry("claimFence", "1"),
              Map.entry("claimNonce", "0123456789abcdef0123456789abcdef"),
              Map.entry("claimedAt", Long.toString(claimed)),
              Map.entry("leaseExpiresAt", Long.toString(claimed + 120_000)),
              Map.entry("updatedAt", Long.toString(claimed))));

      Run check = admin("schema", "check");
      assertEquals(1, check.exitCode(), check.toString());
      assertTrue(check.out().contains("layout 1"), check.toString());
      assertTrue(check.out().contains("schema migrate"), check.toString());
      assertNull(raw.get(REDIS.prefix() + "layout"), "the check wrote the version: " + check);

      Run query = admin("orders", "stuck", "--older-than", "30m");
      assertEquals(2, query.exitCode(), query.toString());
      assertTrue(query.err().contains("schema check"), query.toString());

      Run migrate = admin("schema", "migrate");
      assertEquals(0, migrate.exitCode(), migrate.toString());
      assertTrue(migrate.out().contains("key layout"), migrate.toString());
      assertEquals("3", raw.get(REDIS.prefix() + "layout"));
      assertEquals(
          "0123456789abcdef0123456789abcdef",
          raw.hget(order, "nonce"),
          "the claim's token, where layout 3 keeps it");
      assertNull(raw.hget(order, "claimNonce"));
      Run current = admin("schema", "check");
      assertEquals(0, current.exitCode(), current.toString());

      Run stuck = admin("orders", "stuck", "--older-than", "30m");
      assertEquals(1, stuck.exitCode(), stuck.toString());
      assertTrue(stuck.out().contains("cs_test_v1"), stuck.toString());
    }
  }
}
