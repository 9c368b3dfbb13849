package org.fencekit.store.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.WriteResult;

/**
 * One side of the forked-JVM claim race: run by {@link RedisStoreBehaviour} in a child JVM, and in
 * the test JVM itself through {@link #race}.
 *
 * <p>Arguments: {@code url <redis-url> | cluster <host:port,...>}, the key prefix, the session id
 * prefix, the number of orders and of rounds. The child prints {@code READY} once its store is
 * built, waits for a line on standard input, races, and prints one line per claim it was granted,
 * then {@code DONE}. It exits by itself after at most a minute.
 */
public final class ClaimRaceChild {

  /** Each granted claim is held this long at most, so the other side sees InFlight meanwhile. */
  static final Duration LEASE = Duration.ofHours(1);

  private ClaimRaceChild() {}

  /** Runs one side of the race in a child JVM. */
  public static void main(String[] args) throws Exception {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(60_000);
              } catch (InterruptedException e) {
                return;
              }
              System.err.println("ClaimRaceChild: gave up after 60 s");
              Runtime.getRuntime().halt(3);
            });
    watchdog.setDaemon(true);
    watchdog.start();
    RedisOrderStore.Builder builder = RedisOrderStore.builder().keyPrefix(args[2]);
    if (args[0].equals("url")) {
      builder.url(args[1]);
    } else {
      builder.clusterNodes(args[1]);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (RedisOrderStore store = builder.build()) {
      store.get(args[3] + "warm-up");
      out.println("READY");
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      race(store, args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]), out);
      out.println("DONE");
    }
  }

  /**
   * Claims every order {@code rounds} times; every claim granted is extended, then settled with
   * fail (so the order can be claimed again), and printed as {@code C <sessionId> <fence> <nonce>
   * <extend outcome> <fail outcome>}. Both outcomes must be {@code Written}: the claim was the only
   * live one.
   */
  static void race(
      RedisOrderStore store, String sessionPrefix, int orders, int rounds, PrintStream out) {
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < orders; i++) {
        String sessionId = sessionPrefix + i;
        ClaimResult result =
            store.claim(new OrderSnapshot(sessionId, "esim", 1, null, 100, "usd"), LEASE);
        if (result instanceof ClaimResult.Claimed) {
          ClaimResult.Claimed claimed = (ClaimResult.Claimed) result;
          // Holding the order a little longer (a heartbeat) gives the other side time to collide.
          WriteResult extended = store.extend(sessionId, claimed.claimId(), LEASE);
          WriteResult failed = store.fail(sessionId, claimed.claimId(), "round " + round);
          out.println(
              "C "
                  + sessionId
                  + " "
                  + claimed.claimId().fence()
                  + " "
                  + claimed.claimId().nonce()
                  + " "
                  + extended.getClass().getSimpleName()
                  + " "
                  + failed.getClass().getSimpleName());
        }
      }
    }
  }
}
