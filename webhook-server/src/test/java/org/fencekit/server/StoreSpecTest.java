package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        StoreSpec.Kind.REDIS, StoreSpec.parse("FENCEKIT_STORE", "redis://127.0.0.1:6379").kind());
    assertEquals(
        StoreSpec.Kind.REDIS, StoreSpec.parse("FENCEKIT_STORE", "rediss://cache:6380").kind());
    assertEquals(
        new StoreSpec(StoreSpec.Kind.REDIS_CLUSTER, "10.0.0.1:7001,10.0.0.2:7002"),
        StoreSpec.parse("FENCEKIT_STORE", "redis-cluster:10.0.0.1:7001,10.0.0.2:7002"));
  }

  @Test
  void aBadSpecNamesTheVariableTheFormsAndAGoodValue() {
    for (String bad :
        new String[] {
          "", "  ", "sqlite:", "mysql://db/shop", "redis-cluster:", "redis-cluster:a,b"
        }) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> StoreSpec.parse("FENCEKIT_STORE", bad));
      assertTrue(e.getMessage().startsWith("FENCEKIT_STORE "), e.getMessage());
      assertTrue(e.getMessage().contains("sqlite:PATH"), e.getMessage());
      assertTrue(e.getMessage().contains("FENCEKIT_STORE=sqlite:"), e.getMessage());
    }
  }

  @Test
  void aPasswordNeverShows() {
    StoreSpec postgres =
        StoreSpec.parse("FENCEKIT_STORE", "jdbc:postgresql://db/shop?user=u&password=hunter2");
    assertFalse(postgres.toString().contains("hunter2"), postgres.toString());
    StoreSpec redis = StoreSpec.parse("FENCEKIT_STORE", "redis://default:hunter2@cache:6379");
    assertFalse(redis.toString().contains("hunter2"), redis.toString());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> StoreSpec.parse("FENCEKIT_STORE", "mongodb://admin:hunter2@db/shop"));
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
  }
}
