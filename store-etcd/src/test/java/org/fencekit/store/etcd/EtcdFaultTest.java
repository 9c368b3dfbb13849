package org.fencekit.store.etcd;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.fencekit.faults.Fault;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.testsupport.LoopbackProxy;
import org.fencekit.testsupport.OwnEtcd;
import org.fencekit.testsupport.OwnEtcdCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault harness on a three-member etcd cluster of this test's own, under load: the leader
 * killed (SIGKILL), the leader paused (SIGSTOP) past the election timeout then resumed, a follower
 * restarted, the client's connections to the leader cut. Each run must show no violation of checks
 * (a) to (g): no acknowledged write lost, no fence gone back, every call answered exactly or with
 * an unknown outcome; its summary line says how long until writes landed again.
 */
@DisplayName("EtcdOrderStore under load while its cluster's members fail")
class EtcdFaultTest {

  private static OwnEtcdCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = OwnEtcdCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Every member up and a leader elected before each run. */
  @BeforeEach
  void wholeCluster() {
    cluster.members().forEach(OwnEtcd::ensureRunning);
    cluster.awaitLeader(30_000);
  }

  private static void run(String fault, String endpoints, Fault inject) {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (EtcdOrderStore store =
        EtcdOrderStore.builder()
            .endpoints(endpoints)
            .keyPrefix("faults-" + fault + ":")
            .clock(clock)
            .timeout(Duration.ofSeconds(2))
            .build()) {
      FaultRun.builder("etcd/" + fault, store, clock).fault(inject).run().assertNoViolations();
    }
  }

  /**
   * How long after {@code since} (System.nanoTime) a fresh claim first lands, through a client of
   * its own, trying for at most {@code millis}; printed; fails the run if none landed in time.
   */
  private static long writesLandAgain(String fault, String endpoints, long since, long millis) {
    long deadline = since + Duration.ofMillis(millis).toNanos();
    try (EtcdOrderStore probe =
        EtcdOrderStore.builder()
            .endpoints(endpoints)
            .keyPrefix("faults-probe:")
            .timeout(Duration.ofMillis(500))
            .build()) {
      for (int i = 0; System.nanoTime() < deadline; i++) {
        try {
          probe.claim(
              new OrderSnapshot("probe-" + since + "-" + i, "p", 1, null, 1, "EUR"),
              Duration.ofSeconds(30));
          long landed = Duration.ofNanos(System.nanoTime() - since).toMillis();
          System.out.println(
              "etcd/" + fault + ": writes landed again " + landed + " ms after the fault began");
          return landed;
        } catch (StoreUnavailableException e) {
          // not yet
        }
      }
    }
    throw new IllegalStateException(
        "etcd/" + fault + ": no write landed within " + millis + " ms of the fault's start");
  }

  @Test
  @DisplayName("the leader killed with SIGKILL under load: no violation, a new leader takes writes")
  void leaderKilled() {
    run(
        "leader-sigkill",
        cluster.endpoints(),
        () -> {
          cluster.leader().kill();
          writesLandAgain("leader-sigkill", cluster.endpoints(), System.nanoTime(), 15_000);
          return 1;
        });
  }

  @Test
  @DisplayName(
      "the leader paused (SIGSTOP) for 3 s, past the election timeout, then resumed: no violation")
  void leaderPaused() {
    run(
        "leader-sigstop-3s",
        cluster.endpoints(),
        () -> {
          OwnEtcd leader = cluster.leader();
          leader.pause();
          long paused = System.nanoTime();
          try {
            writesLandAgain("leader-sigstop-3s", cluster.endpoints(), paused, 3000);
            Thread.sleep(
                Math.max(0, 3000 - Duration.ofNanos(System.nanoTime() - paused).toMillis()));
          } finally {
            leader.resume();
          }
          return 1;
        });
  }

  @Test
  @DisplayName("a follower restarted under load: no violation")
  void followerRestarted() {
    OwnEtcd leader = cluster.leader();
    OwnEtcd follower =
        cluster.members().stream().filter(m -> m != leader).findFirst().orElseThrow();
    run(
        "follower-restart",
        cluster.endpoints(),
        () -> {
          long began = System.nanoTime();
          follower.restart();
          writesLandAgain("follower-restart", cluster.endpoints(), began, 15_000);
          return 1;
        });
  }

  @Test
  @DisplayName(
      "the client's connections to the leader cut for 1 s (a proxy in front of it closed): no"
          + " violation")
  void connectionToLeaderCut() {
    OwnEtcd leader = cluster.leader();
    try (LoopbackProxy proxy = LoopbackProxy.to(leader.port())) {
      List<String> endpoints =
          cluster.members().stream()
              .map(m -> m == leader ? "http://127.0.0.1:" + proxy.port() : m.endpoint())
              .collect(Collectors.toList());
      run(
          "connection-to-leader-cut",
          String.join(",", endpoints),
          () -> {
            int cut = proxy.cut();
            long began = System.nanoTime();
            writesLandAgain("connection-to-leader-cut", String.join(",", endpoints), began, 1000);
            Thread.sleep(
                Math.max(0, 1000 - Duration.ofNanos(System.nanoTime() - began).toMillis()));
            proxy.heal();
            return Math.max(1, cut);
          });
    }
  }
}
