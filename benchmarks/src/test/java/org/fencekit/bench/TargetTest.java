package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A target is met or missed by a paired ratio whose interval is on one side of it, or within ±10%
 * of its median; a wider interval that spans it leaves it undecided.
 */
class TargetTest {

  private static final Target TARGET = new Target(0.95);

  @Test
  @DisplayName("a ratio whose whole interval is at or above the target meets it, however wide")
  void met() {
    assertEquals("≥0.95 met", TARGET.verdict(new Ratio(1.0, 0.95, 1.04, 30)));
    assertEquals("≥0.95 met", TARGET.verdict(new Ratio(2.0, 1.0, 4.0, 30)));
  }

  @Test
  @DisplayName("a ratio whose whole interval is below the target misses it, however wide")
  void missed() {
    assertEquals("≥0.95 missed", TARGET.verdict(new Ratio(0.5, 0.45, 0.55, 30)));
    assertEquals("≥0.95 missed", TARGET.verdict(new Ratio(0.5, 0.2, 0.94, 30)));
  }

  @Test
  @DisplayName("an interval within ±10% that spans the target: the median decides, marked close")
  void close() {
    assertEquals("≥0.95 met, close", TARGET.verdict(new Ratio(0.97, 0.9, 1.02, 30)));
    assertEquals("≥0.95 missed, close", TARGET.verdict(new Ratio(0.93, 0.88, 0.99, 30)));
  }

  @Test
  @DisplayName("an interval wider than ±10% that spans the target is undecided, with its width")
  void undecided() {
    assertEquals("≥0.95 undecided: interval ±25%", TARGET.verdict(new Ratio(0.8, 0.6, 1.0, 30)));
    assertEquals(
        "≥0.95 undecided: too few pairs",
        TARGET.verdict(new Ratio(0.97, Double.NaN, Double.NaN, 3)));
    assertEquals("≥0.95 ?", TARGET.verdict(Ratio.of(new double[0])));
    assertEquals("≥3 undecided: interval ±50%", new Target(3).verdict(new Ratio(2.8, 1.4, 4, 30)));
  }

  @Test
  @DisplayName("without a target, no mark")
  void none() {
    assertEquals("-", Target.NONE.verdict(new Ratio(1.0, 0.95, 1.04, 30)));
  }

  @Test
  @DisplayName(
      "issue 36's targets: PostgreSQL ≥1.0x ShedLock over its DataSource and ≥0.95x from a URL,"
          + " Redis ≥0.8x ShedLock on a node and ≥0.7x on the Cluster and ≥3x Redisson, MySQL"
          + " ≥0.8x, memory ≥0.8x its map, SQLite ≥0.9x raw")
  void targets() {
    assertEquals(1.0, Target.peer(StoreType.POSTGRES_DATASOURCE, Peer.SHEDLOCK_JDBC).minimum());
    assertEquals(0.95, Target.peer(StoreType.POSTGRES, Peer.SHEDLOCK_JDBC).minimum());
    assertEquals(0.8, Target.peer(StoreType.REDIS, Peer.SHEDLOCK_REDIS).minimum());
    assertEquals(0.7, Target.peer(StoreType.REDIS_CLUSTER, Peer.SHEDLOCK_REDIS_CLUSTER).minimum());
    assertEquals(3.0, Target.peer(StoreType.REDIS, Peer.REDISSON_FENCED).minimum());
    assertEquals(3.0, Target.peer(StoreType.REDIS_CLUSTER, Peer.REDISSON_FENCED_CLUSTER).minimum());
    assertEquals(0.9, Target.raw(StoreType.SQLITE).minimum());
    assertEquals(0.9, Target.raw(StoreType.SQLITE_NORMAL).minimum());
    assertEquals(0.8, Target.raw(StoreType.MEMORY).minimum());
    assertEquals(1.0, Target.hot(StoreType.POSTGRES_DATASOURCE, Peer.SHEDLOCK_JDBC).minimum());
    assertEquals(0.95, Target.hot(StoreType.POSTGRES, Peer.SHEDLOCK_JDBC).minimum());
    assertEquals(List.of(), Peer.hotOf(StoreType.POSTGRES_PGBOUNCER));
    assertEquals(List.of(Peer.SHEDLOCK_JDBC), Peer.hotOf(StoreType.POSTGRES_DATASOURCE));
    assertEquals(Double.NaN, Target.raw(StoreType.REDIS).minimum());
    assertEquals(
        Double.NaN, Target.peer(StoreType.POSTGRES_PGBOUNCER, Peer.SHEDLOCK_JDBC).minimum());
    for (StoreType mysql : List.of(StoreType.MYSQL, StoreType.MYSQL_DATASOURCE)) {
      assertEquals(List.of(Peer.SHEDLOCK_JDBC_MYSQL), Peer.of(mysql));
      assertEquals(0.8, Target.peer(mysql, Peer.SHEDLOCK_JDBC_MYSQL).minimum());
      assertEquals(Double.NaN, Target.raw(mysql).minimum());
      assertEquals(List.of(), Peer.hotOf(mysql));
    }
  }
}
