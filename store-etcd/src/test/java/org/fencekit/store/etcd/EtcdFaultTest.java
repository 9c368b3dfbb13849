package org.fencekit.store.etcd;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.fencekit.faults.Fault;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
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

  @Test
  @DisplayName("the leader killed with SIGKILL under load: no violation, a new leader takes writes")
  void leaderKilled() {
    run(
        "leader-sigkill",
        cluster.endpoints(),
        () -> {
          cluster.leader().kill();
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
          try {
            Thread.sleep(3000);
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
          follower.restart();
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
            Thread.sleep(1000);
            proxy.heal();
            return Math.max(1, cut);
          });
    }
  }
}
