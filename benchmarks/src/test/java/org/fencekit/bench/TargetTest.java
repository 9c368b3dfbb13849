package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A target is met only by a ratio whose whole interval clears it. */
class TargetTest {

  private static final Target TARGET = new Target(0.95);

  @Test
  @DisplayName("a ratio whose whole interval is at or above the target meets it")
  void met() {
    assertEquals("≥0.95 met", TARGET.verdict(new Figure(100, 2).over(new Figure(100, 2))));
  }

  @Test
  @DisplayName("a ratio whose interval spans the target is open, however close its mean")
  void open() {
    assertEquals("≥0.95 open", TARGET.verdict(new Figure(100, 20).over(new Figure(100, 20))));
    assertEquals("≥0.95 open", TARGET.verdict(new Figure(90, 10).over(new Figure(100, 1))));
  }

  @Test
  @DisplayName("a ratio whose whole interval is below the target misses it")
  void missed() {
    assertEquals("≥0.95 missed", TARGET.verdict(new Figure(50, 2).over(new Figure(100, 2))));
  }

  @Test
  @DisplayName("without an interval there is no verdict, and without a target no mark")
  void unknown() {
    assertEquals("≥0.95 ?", TARGET.verdict(new Figure(100, Double.NaN).over(new Figure(90, 1))));
    assertEquals("-", Target.NONE.verdict(new Figure(100, 1).over(new Figure(90, 1))));
    assertEquals("≥3 open", new Target(3).verdict(new Figure(300, 30).over(new Figure(100, 1))));
  }

  @Test
  @DisplayName("the targets of issue 13: PostgreSQL, Redis against both peers, memory and SQLite")
  void targets() {
    assertEquals(0.95, Target.peer(StoreType.POSTGRES_DATASOURCE, Peer.SHEDLOCK_JDBC).minimum());
    assertEquals(0.855, Target.peer(StoreType.POSTGRES, Peer.SHEDLOCK_JDBC).minimum(), 1e-9);
    assertEquals(0.8, Target.peer(StoreType.REDIS_CLUSTER, Peer.SHEDLOCK_REDIS_CLUSTER).minimum());
    assertEquals(3.0, Target.peer(StoreType.REDIS, Peer.REDISSON_FENCED).minimum());
    assertEquals(0.9, Target.raw(StoreType.SQLITE).minimum());
    assertEquals(0.95, Target.hot(StoreType.POSTGRES_DATASOURCE, Peer.SHEDLOCK_JDBC).minimum());
    assertEquals(0.855, Target.hot(StoreType.POSTGRES, Peer.SHEDLOCK_JDBC).minimum(), 1e-9);
    assertEquals(List.of(), Peer.hotOf(StoreType.POSTGRES_PGBOUNCER));
    assertEquals(List.of(Peer.SHEDLOCK_JDBC), Peer.hotOf(StoreType.POSTGRES_DATASOURCE));
    assertEquals(Double.NaN, Target.raw(StoreType.REDIS).minimum());
  }
}
