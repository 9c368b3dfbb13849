package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How a server is found, skipped, required, and what a bad variable says. */
class BackendTest {

  private static final String SECRET = "hunter2-s3cret";

  private static Function<String, String> env(String... pairs) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return map::get;
  }

  private static Backend postgres(Function<String, String> env) {
    return TestPostgres.SERVER.in(env, Optional::empty);
  }

  @Test
  @DisplayName("no variable, no Docker: the test is skipped, saying which variable enables it")
  void skipsNamingTheVariable() {
    Backend server = postgres(env());
    assertFalse(server.available());
    BackendSkipped skipped = assertThrows(BackendSkipped.class, server::address);
    assertEquals("PostgreSQL", skipped.backend().name());
    assertEquals("FENCEKIT_POSTGRES_URL", skipped.backend().variable());
    assertTrue(
        skipped
            .getMessage()
            .contains(
                "set FENCEKIT_POSTGRES_URL=jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
        skipped.getMessage());
    assertTrue(
        skipped.getMessage().contains("FENCEKIT_REQUIRE_BACKENDS=true to fail"),
        skipped.getMessage());
  }

  @Test
  @DisplayName("no Docker: the container supplier is asked only when the variable is unset")
  void containerOnlyWithoutVariable() {
    Backend fromContainer =
        TestPostgres.SERVER.in(env(), () -> Optional.of("jdbc:postgresql://container/test"));
    assertEquals("jdbc:postgresql://container/test", fromContainer.address());
    Backend blank =
        TestPostgres.SERVER.in(
            env("FENCEKIT_POSTGRES_URL", "  "),
            () -> Optional.of("jdbc:postgresql://container/test"));
    assertEquals("jdbc:postgresql://container/test", blank.address(), "a blank value is unset");
  }

  @Test
  @DisplayName("FENCEKIT_REQUIRE_BACKENDS=true turns a missing server into a failure")
  void requiredFails() {
    for (String value : new String[] {"true", "TRUE", " true "}) {
      Backend server = postgres(env("FENCEKIT_REQUIRE_BACKENDS", value));
      IllegalStateException e = assertThrows(IllegalStateException.class, server::available);
      assertTrue(
          e.getMessage().contains("FENCEKIT_REQUIRE_BACKENDS=true forbids skipping"),
          e.getMessage());
      assertTrue(e.getMessage().contains("set FENCEKIT_POSTGRES_URL="), e.getMessage());
      assertThrows(IllegalStateException.class, server::address, "address() fails too");
    }
    assertFalse(postgres(env("FENCEKIT_REQUIRE_BACKENDS", "false")).available());
  }

  @Test
  @DisplayName("a FENCEKIT_REQUIRE_BACKENDS that is neither true nor false is named")
  void requiredMalformed() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> postgres(env("FENCEKIT_REQUIRE_BACKENDS", "yes")).available());
    assertTrue(
        e.getMessage().startsWith("FENCEKIT_REQUIRE_BACKENDS must be true or false, not 'yes'"),
        e.getMessage());
  }

  @Test
  @DisplayName(
      "a malformed FENCEKIT_POSTGRES_URL fails naming the variable and a good value, without its password")
  void malformedPostgres() {
    Backend server =
        postgres(env("FENCEKIT_POSTGRES_URL", "postgres://127.0.0.1/test?password=" + SECRET));
    IllegalStateException e = assertThrows(IllegalStateException.class, server::address);
    assertTrue(e.getMessage().startsWith("FENCEKIT_POSTGRES_URL=postgres://"), e.getMessage());
    assertTrue(e.getMessage().contains("is malformed: "), e.getMessage());
    assertTrue(
        e.getMessage()
            .endsWith(
                "A good value: FENCEKIT_POSTGRES_URL=jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
        e.getMessage());
    assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    assertEquals(
        e.getMessage(),
        assertThrows(IllegalStateException.class, server::available).getMessage(),
        "every later call fails the same way");
  }

  @Test
  @DisplayName("FENCEKIT_POSTGRES_URL where nothing answers fails saying so, without its password")
  void unreachablePostgres() {
    String url =
        "jdbc:postgresql://127.0.0.1:"
            + LoopbackPorts.closed()
            + "/test?user=postgres&password="
            + SECRET
            + "&connectTimeout=2";
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> postgres(env("FENCEKIT_POSTGRES_URL", url)).available());
    assertTrue(e.getMessage().startsWith("FENCEKIT_POSTGRES_URL points at "), e.getMessage());
    assertTrue(e.getMessage().contains("but no PostgreSQL answers there"), e.getMessage());
    assertTrue(e.getMessage().contains("start the server or fix the variable"), e.getMessage());
    assertFalse(e.getMessage().contains(SECRET), e.getMessage());
  }

  @Test
  @DisplayName("a malformed FENCEKIT_REDIS_URL fails naming the variable and a good value")
  void malformedRedisUrl() {
    for (String value :
        new String[] {"127.0.0.1:6379", "http://127.0.0.1:6379", "redis://", "redis:// bad"}) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () -> TestRedis.NODE.in(env("FENCEKIT_REDIS_URL", value), Optional::empty).address());
      assertTrue(e.getMessage().startsWith("FENCEKIT_REDIS_URL=" + value), e.getMessage());
      assertTrue(
          e.getMessage().endsWith("A good value: FENCEKIT_REDIS_URL=redis://127.0.0.1:6379"),
          e.getMessage());
    }
  }

  @Test
  @DisplayName("FENCEKIT_REDIS_URL where nothing answers fails saying so, without its password")
  void unreachableRedis() {
    String url = "redis://fencekit:" + SECRET + "@127.0.0.1:" + LoopbackPorts.closed();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> TestRedis.NODE.in(env("FENCEKIT_REDIS_URL", url), Optional::empty).address());
    assertTrue(
        e.getMessage().startsWith("FENCEKIT_REDIS_URL points at redis://fencekit:***@127.0.0.1:"),
        e.getMessage());
    assertTrue(e.getMessage().contains("but no Redis answers there"), e.getMessage());
    assertFalse(e.getMessage().contains(SECRET), e.getMessage());
  }

  @Test
  @DisplayName(
      "a malformed FENCEKIT_REDIS_CLUSTER_NODES fails naming the variable and a good value")
  void malformedClusterNodes() {
    for (String value :
        new String[] {
          "127.0.0.1", "127.0.0.1:7001;127.0.0.1:7002", "127.0.0.1:7001,", ":7001", "h:70000"
        }) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () ->
                  TestRedis.CLUSTER
                      .in(env("FENCEKIT_REDIS_CLUSTER_NODES", value), Optional::empty)
                      .address());
      assertTrue(
          e.getMessage().startsWith("FENCEKIT_REDIS_CLUSTER_NODES=" + value + " is malformed"),
          e.getMessage());
      assertTrue(
          e.getMessage()
              .endsWith(
                  "A good value: FENCEKIT_REDIS_CLUSTER_NODES=127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003"),
          e.getMessage());
    }
  }

  @Test
  @DisplayName("FENCEKIT_REDIS_CLUSTER_NODES where nothing answers fails saying so")
  void unreachableCluster() {
    String nodes = "127.0.0.1:" + LoopbackPorts.closed() + ", 127.0.0.1:" + LoopbackPorts.closed();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                TestRedis.CLUSTER
                    .in(env("FENCEKIT_REDIS_CLUSTER_NODES", nodes), Optional::empty)
                    .address());
    assertTrue(
        e.getMessage().startsWith("FENCEKIT_REDIS_CLUSTER_NODES points at "), e.getMessage());
    assertTrue(e.getMessage().contains("but no Redis Cluster answers there"), e.getMessage());
  }
}
