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
 * an unknown outcome; its summary line says how long until writes landed again. A probe client,
 * connected before the fault, says how long after the fault began a fresh claim landed; the pause
 * and the cut last until one has (however long an election takes on a loaded machine), so the
 * cluster is seen taking writes without the member that led.
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
   * How long a probe tries for a write to land after a fault began. Elections (a randomised 1 to 2
   * s timeout, idle) and restarts take seconds longer on a loaded machine; the wait ends as soon as
   * one write lands.
   */
  private static final long LAND_LIMIT_MILLIS = 30_000;

  /**
   * A client of its own that times how long after a fault began a fresh claim lands again. It is
   * built, and has landed a claim, before the fault: jetcd loads gRPC and connects on a client's
   * first call, which takes seconds on a loaded machine and must not be timed as the fault's.
   */
  private static final class Probe implements AutoCloseable {
    private final String fault;
    private final EtcdOrderStore store;
    private int claims;

    Probe(String fault, String endpoints) {
      this.fault = fault;
      this.store =
          EtcdOrderStore.builder()
              .endpoints(endpoints)
              .keyPrefix("faults-probe:")
              .timeout(Duration.ofMillis(500))
              .build();
      if (claimUntil(System.nanoTime() + Duration.ofMillis(LAND_LIMIT_MILLIS).toNanos()) < 0) {
        throw new IllegalStateException(
            "etcd/" + fault + ": the probe landed no write within " + LAND_LIMIT_MILLIS + " ms");
      }
    }

    /**
     * How long after {@code since} (System.nanoTime) a fresh claim lands, trying for at most {@link
     * #LAND_LIMIT_MILLIS}; printed; fails the run if none landed in time.
     */
    long writesLandAgain(long since) {
      long landed = claimUntil(since + Duration.ofMillis(LAND_LIMIT_MILLIS).toNanos());
      if (landed < 0) {
        throw new IllegalStateException(
            "etcd/"
                + fault
                + ": no write landed within "
                + LAND_LIMIT_MILLIS
                + " ms of the fault's start");
      }
      long millis = Duration.ofNanos(landed - since).toMillis();
      System.out.println(
          "etcd/" + fault + ": writes landed again " + millis + " ms after the fault began");
      return millis;
    }

    /** When (System.nanoTime) a claim of a new order landed, trying until deadline; else -1. */
    private long claimUntil(long deadline) {
      do {
        try {
          // a new order each try: one whose answer was lost may have landed, and would be InFlight
          store.claim(
              new OrderSnapshot("probe-" + fault + "-" + claims++, "p", 1, null, 1, "EUR"),
              Duration.ofSeconds(30));
          return System.nanoTime();
        } catch (StoreUnavailableException e) {
          // not yet
        }
      } while (System.nanoTime() - deadline < 0);
      return -1;
    }

    @Override
    public void close() {
      store.close();
    }
  }

  /**
   * Fails unless one of {@code members} leads, waiting up to 15 s for the members to say so: a
   * write landed while the member that led was stopped, so it was another's.
   */
  private static void awaitLeaderAmong(List<OwnEtcd> members) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (members.stream().noneMatch(OwnEtcd::leads)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("none of " + members + " leads after 15 s");
      }
      Thread.sleep(50);
    }
  }

  @Test
  @DisplayName("the leader killed with SIGKILL under load: no violation, a new leader takes writes")
  void leaderKilled() {
    try (Probe probe = new Probe("leader-sigkill", cluster.endpoints())) {
      run(
          "leader-sigkill",
          cluster.endpoints(),
          () -> {
            cluster.leader().kill();
            probe.writesLandAgain(System.nanoTime());
            return 1;
          });
    }
  }

  @Test
  @DisplayName(
      "the leader paused (SIGSTOP) until another member leads and takes writes, and for at least"
          + " 3 s, then resumed: no violation")
  void leaderPaused() {
    try (Probe probe = new Probe("leader-sigstop-3s", cluster.endpoints())) {
      run(
          "leader-sigstop-3s",
          cluster.endpoints(),
          () -> {
            OwnEtcd leader = cluster.leader();
            List<OwnEtcd> others =
                cluster.members().stream().filter(m -> m != leader).collect(Collectors.toList());
            leader.pause();
            long paused = System.nanoTime();
            try {
              // stopped until a write lands: then a new leader has been elected without it, however
              // long the election took on a loaded machine
              probe.writesLandAgain(paused);
              awaitLeaderAmong(others);
              // the fault's length, not a wait for anything: the load meets a stopped leader for
              // 3 s at least
              Thread.sleep(
                  Math.max(0, 3000 - Duration.ofNanos(System.nanoTime() - paused).toMillis()));
            } finally {
              leader.resume();
            }
            return 1;
          });
    }
  }

  @Test
  @DisplayName("a follower restarted under load: no violation")
  void followerRestarted() {
    OwnEtcd leader = cluster.leader();
    OwnEtcd follower =
        cluster.members().stream().filter(m -> m != leader).findFirst().orElseThrow();
    try (Probe probe = new Probe("follower-restart", cluster.endpoints())) {
      run(
          "follower-restart",
          cluster.endpoints(),
          () -> {
            long began = System.nanoTime();
            follower.restart();
            probe.writesLandAgain(began);
            return 1;
          });
    }
  }

  @Test
  @DisplayName(
      "the client's connections to the leader cut (a proxy in front of it closed) until writes land"
          + " through the others, and for at least 1 s: no violation")
  void connectionToLeaderCut() {
    OwnEtcd leader = cluster.leader();
    try (LoopbackProxy proxy = LoopbackProxy.to(leader.port())) {
      List<String> endpoints =
          cluster.members().stream()
              .map(m -> m == leader ? "http://127.0.0.1:" + proxy.port() : m.endpoint())
              .collect(Collectors.toList());
      try (Probe probe = new Probe("connection-to-leader-cut", String.join(",", endpoints))) {
        run(
            "connection-to-leader-cut",
            String.join(",", endpoints),
            () -> {
              int cut = proxy.cut();
              long began = System.nanoTime();
              try {
                // cut until a write lands through the other members, however slow the machine
                probe.writesLandAgain(began);
                // the fault's length, not a wait for anything: the load meets refused connections
                // for 1 s at least
                Thread.sleep(
                    Math.max(0, 1000 - Duration.ofNanos(System.nanoTime() - began).toMillis()));
              } finally {
                proxy.heal();
              }
              return Math.max(1, cut);
            });
      }
    }
  }
}
