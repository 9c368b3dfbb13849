package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A server variable is checked before anything connects, and a bad one is named and explained. */
class ServerTest {

  @ParameterizedTest(name = "{0}={1} is accepted")
  @DisplayName("good values are accepted as they are")
  @CsvSource(
      delimiter = ' ',
      value = {
        "POSTGRES jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
        "POSTGRES jdbc:postgresql://db.internal/shop",
        "MYSQL jdbc:mysql://127.0.0.1:3306/test?user=root",
        "MYSQL jdbc:mariadb://db.internal/shop",
        "REDIS redis://127.0.0.1:6379",
        "REDIS rediss://:pw@cache.internal:6380/2",
        "REDIS_CLUSTER 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003",
        "REDIS_CLUSTER [::1]:7001",
        "ETCD http://127.0.0.1:2379,http://127.0.0.1:2381,http://127.0.0.1:2383",
        "ETCD http://etcd-0.internal:2379"
      })
  void good(Server server, String value) {
    assertEquals(Optional.of(value), server.lookup(Map.of(server.variable(), value)));
  }

  @ParameterizedTest(name = "{0}={1}: {2}")
  @DisplayName("a malformed value names its variable, says what is wrong, and shows a good value")
  @CsvSource(
      delimiter = '|',
      value = {
        "POSTGRES|postgres://shop:s3cret@db/shop|is not a PostgreSQL JDBC URL",
        "POSTGRES|jdbc:postgresql:///test?password=s3cret|has no host",
        "POSTGRES|s3cret|no scheme at all",
        "MYSQL|mysql://shop:s3cret@db/shop|is not a MySQL JDBC URL",
        "MYSQL|jdbc:postgresql://db/shop?password=s3cret|is not a MySQL JDBC URL",
        "MYSQL|jdbc:mysql:///test?password=s3cret|has no host",
        "REDIS|http://127.0.0.1:6379|is not a Redis URL",
        "REDIS|127.0.0.1:6379|is not a Redis URL",
        "REDIS|redis://:s3cret@|has no host",
        "REDIS_CLUSTER|redis://:s3cret@127.0.0.1:7001|holds an '@'",
        "REDIS_CLUSTER|127.0.0.1:7001,127.0.0.1|entry 2 is '127.0.0.1'",
        "REDIS_CLUSTER|7001|entry 1 is '7001'",
        "REDIS_CLUSTER|127.0.0.1:70010|entry 1",
        "ETCD|127.0.0.1:2379|entry 1 is '127.0.0.1:2379'",
        "ETCD|http://root:s3cret@127.0.0.1:2379|holds an '@'",
        "ETCD|http://127.0.0.1:2379,https://127.0.0.1:2381|entry 2 is 'https://127.0.0.1:2381'"
      })
  void malformed(Server server, String value, String problem) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> server.lookup(Map.of(server.variable(), value)));
    String message = e.getMessage();
    assertTrue(message.startsWith(server.variable() + " "), message);
    assertTrue(message.contains(problem), message);
    assertTrue(
        message.endsWith("A good value: " + server.variable() + "=" + server.example()), message);
    assertFalse(message.contains("s3cret"), "the message repeats a password: " + message);
  }

  @ParameterizedTest(name = "{0} unset or blank is not configured")
  @DisplayName("an unset or blank variable means the server is not configured")
  @CsvSource({"POSTGRES", "MYSQL", "REDIS", "REDIS_CLUSTER", "ETCD"})
  void unset(Server server) {
    assertEquals(Optional.empty(), server.lookup(Map.of()));
    assertEquals(Optional.empty(), server.lookup(Map.of(server.variable(), "  ")));
  }
}
