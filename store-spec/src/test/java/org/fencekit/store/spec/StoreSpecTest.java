package org.fencekit.store.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.testsupport.TestEtcd;
import org.fencekit.testsupport.TestMysql;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.Test;

class StoreSpecTest {

  @Test
  void eachFormNamesItsBackend() {
    assertEquals(
        new StoreSpec(StoreSpec.Kind.SQLITE, "/var/lib/shop/orders.db"),
        StoreSpec.parse("FENCEKIT_STORE", "sqlite:/var/lib/shop/orders.db"));
    assertEquals(
        StoreSpec.Kind.POSTGRES,
        StoreSpec.parse("FENCEKIT_STORE", "jdbc:postgresql://db:5432/shop?user=u").kind());
    assertEquals(
        StoreSpec.Kind.MYSQL,
        StoreSpec.parse("FENCEKIT_STORE", "jdbc:mysql://db:3306/shop?user=u").kind());
    assertEquals(
        StoreSpec.Kind.MYSQL,
        StoreSpec.parse("FENCEKIT_STORE", "JDBC:MariaDB://db:3306/shop?user=u").kind());
    assertEquals(
        StoreSpec.Kind.REDIS, StoreSpec.parse("FENCEKIT_STORE", "redis://127.0.0.1:6379").kind());
    assertEquals(
        StoreSpec.Kind.REDIS, StoreSpec.parse("FENCEKIT_STORE", "rediss://cache:6380").kind());
    assertEquals(
        new StoreSpec(StoreSpec.Kind.REDIS_CLUSTER, "10.0.0.1:7001,10.0.0.2:7002"),
        StoreSpec.parse("FENCEKIT_STORE", "redis-cluster:10.0.0.1:7001,10.0.0.2:7002"));
    assertEquals(
        new StoreSpec(StoreSpec.Kind.ETCD, "etcd://10.0.0.1:2379,10.0.0.2:2379/shop:"),
        StoreSpec.parse("FENCEKIT_STORE", "etcd://10.0.0.1:2379,10.0.0.2:2379/shop:"));
    assertEquals(
        StoreSpec.Kind.ETCD, StoreSpec.parse("FENCEKIT_STORE", "etcd://127.0.0.1:2379").kind());
    assertEquals(
        new StoreSpec(StoreSpec.Kind.SQLITE, "orders.db"),
        StoreSpec.parse("--store", "  SQLite:orders.db "));
  }

  @Test
  void aBadSpecNamesTheVariableTheFormsAndAGoodValue() {
    for (String variable : new String[] {"FENCEKIT_STORE", "--store"}) {
      for (String bad :
          new String[] {
            "",
            "  ",
            "sqlite:",
            "mysql://db/shop",
            "jdbc:mysqlx://db/shop",
            "redis-cluster:",
            "redis-cluster:a,b",
            "redis-cluster:a:1,,b:2",
            "redis-cluster:a:99999999",
            "etcd://",
            "etcd://a",
            "etcd://a:1,,b:2/p"
          }) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> StoreSpec.parse(variable, bad));
        assertTrue(e.getMessage().startsWith(variable + " "), e.getMessage());
        assertTrue(e.getMessage().contains("sqlite:PATH"), e.getMessage());
        assertTrue(e.getMessage().contains(variable + "=sqlite:"), e.getMessage());
      }
    }
  }

  @Test
  void aPasswordNeverShows() {
    StoreSpec postgres =
        StoreSpec.parse("FENCEKIT_STORE", "jdbc:postgresql://db/shop?user=u&password=hunter2");
    assertFalse(postgres.toString().contains("hunter2"), postgres.toString());
    StoreSpec redis = StoreSpec.parse("FENCEKIT_STORE", "redis://default:hunter2@cache:6379");
    assertFalse(redis.toString().contains("hunter2"), redis.toString());
    for (String mysql :
        new String[] {
          "jdbc:mysql://db/shop?user=u&password=hunter2", "jdbc:mariadb://u:hunter2@db/shop"
        }) {
      StoreSpec spec = StoreSpec.parse("FENCEKIT_STORE", mysql);
      assertFalse(spec.toString().contains("hunter2"), spec.toString());
      assertTrue(spec.toString().contains("db/shop"), spec.toString());
    }
    assertTrue(redis.toString().contains("cache:6379"), redis.toString());
    StoreSpec slashy = StoreSpec.parse("FENCEKIT_STORE", "redis://:pa%2Fss@cache:6379");
    assertFalse(slashy.toString().contains("pa%2Fss"), slashy.toString());
    for (String bad :
        new String[] {
          "mongodb://admin:hunter2@db/shop",
          "redis-cluster:admin:hunter2@db:7000",
          "etcd://admin:hunter2@db:2379"
        }) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> StoreSpec.parse("FENCEKIT_STORE", bad));
      assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    }
  }

  @Test
  void redactMasksTheSpecsPasswordAnywhereInAMessage() {
    StoreSpec redis = StoreSpec.parse("--store", "redis://default:s3cr%40t@cache:6379");
    String message = "auth failed for s3cr@t (raw s3cr%40t) at redis://default:s3cr%40t@cache";
    String redacted = redis.redact(message);
    assertFalse(redacted.contains("s3cr"), redacted);
    StoreSpec postgres =
        StoreSpec.parse("--store", "jdbc:postgresql://db/shop?password=hunter2&user=u");
    assertEquals(
        "password *** was refused, url jdbc:postgresql://db/shop?password=***&user=u",
        postgres.redact(
            "password hunter2 was refused, url jdbc:postgresql://db/shop?password=hunter2&user=u"));
  }

  @Test
  void aMysqlSpecOpensAStoreThatCreatesItsTablesAndOpensThemAgain() {
    String url = TestMysql.jdbcUrl(); // skips without a server
    try (TestMysql.Database database = TestMysql.newDatabase()) {
      for (String form :
          new String[] {database.jdbcUrl(), "jdbc:mariadb:" + database.jdbcUrl().substring(11)}) {
        StoreSpec spec = StoreSpec.parse("FENCEKIT_STORE", form);
        String order = "cs_spec_" + form.substring(5, 9);
        try (OrderStore store = spec.open(Clock.systemUTC())) {
          assertTrue(store.toString().startsWith("MysqlOrderStore["), store.toString());
          assertTrue(
              store.claim(
                      new OrderSnapshot(order, "esim", 1, null, 100, "usd"), Duration.ofMinutes(1))
                  instanceof ClaimResult.Claimed);
        }
        try (OrderStore again = spec.open(Clock.systemUTC(), false, StoreSpec.DEFAULT_KEY_PREFIX)) {
          assertTrue(again.get(order).isPresent(), "the order is in the database the URL names");
        }
      }
    }
    assertTrue(url.startsWith("jdbc:mysql:"), url);
  }

  @Test
  void anEtcdSpecOpensAStoreOnTheClusterWithTheKeyPrefixItNames() {
    String endpoints = TestEtcd.endpoints(); // skips without a cluster
    String members = String.join(",", endpoints.replace("http://", "").split(","));
    String prefix = TestRedis.newPrefix("spec");
    try {
      StoreSpec spec = StoreSpec.parse("FENCEKIT_STORE", "etcd://" + members + "/" + prefix);
      String order = "cs_spec_etcd_" + System.nanoTime();
      try (OrderStore store = spec.open(Clock.systemUTC())) {
        assertTrue(store.toString().contains("keyPrefix=" + prefix), store.toString());
        assertTrue(
            store.claim(
                    new OrderSnapshot(order, "esim", 1, null, 100, "usd"), Duration.ofMinutes(1))
                instanceof ClaimResult.Claimed);
      }
      try (OrderStore again =
          StoreSpec.parse("--store", "etcd://" + members).open(Clock.systemUTC(), false, prefix)) {
        assertTrue(again.get(order).isPresent(), "the order is under the prefix the URL named");
      }
    } finally {
      TestEtcd.deleteKeys(endpoints, prefix);
    }
  }
}
