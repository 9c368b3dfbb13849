package org.fencekit.bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Formatter;
import java.util.List;
import java.util.Locale;
import java.util.stream.DoubleStream;
import org.fencekit.store.redis.RedisOrderStore;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redis's own time per claim + complete: the Redis store's scripts beside the floor ({@link
 * FencedCasFloor}), each on fresh orders, in interleaved rounds on one Redis node that nothing else
 * uses. Each round runs {@code orders} claim + complete pairs through the store, then as many
 * through the floor (or the floor first: the order alternates A B, B A, ... so that a drift of the
 * machine weighs on both alike), one connection at a time, and reads {@code INFO commandstats}
 * before and after each: the usec Redis spent in EVALSHA and EVAL (a script's commands included),
 * divided by the pairs. The ratio is taken per round; the summary is their median with its
 * distribution-free 95% interval ({@link Ratio}, as the compare command's; it needs 6 rounds). The
 * time is what Redis spends, not the client's: the JVM and the network do not count, though a
 * loaded machine still stretches Redis's own time (hence the interleaving and the interval).
 */
final class ScriptTime {

  private ScriptTime() {}

  /** One round: Redis's µs per pair for the store's scripts and for the floor. */
  record Round(int number, boolean storeFirst, double storeMicros, double floorMicros) {
    double ratio() {
      return storeMicros / floorMicros;
    }
  }

  /** The rounds of a run, and their summary. */
  record Result(int orders, List<Round> rounds) {

    /** The median ratio over the rounds, with its interval. */
    Ratio ratio() {
      return Ratio.of(rounds.stream().mapToDouble(Round::ratio).toArray());
    }

    /** The table and the summary, one line each. */
    String format() {
      Formatter out = new Formatter(Locale.ROOT);
      out.format(
          "Redis's own time per claim + complete (EVALSHA usec / pairs), %,d fresh orders a"
              + " round%n",
          orders);
      out.format("%-6s %-9s %12s %12s %7s%n", "round", "first", "store µs", "floor µs", "ratio");
      for (Round r : rounds) {
        out.format(
            "%-6d %-9s %12.2f %12.2f %7.2f%n",
            r.number(),
            r.storeFirst() ? "store" : "floor",
            r.storeMicros(),
            r.floorMicros(),
            r.ratio());
      }
      out.format(
          "median: store %.2f µs, floor %.2f µs per pair; store / floor %s%n",
          median(rounds.stream().mapToDouble(Round::storeMicros)),
          median(rounds.stream().mapToDouble(Round::floorMicros)),
          ratio().text());
      return out.toString();
    }
  }

  /**
   * Measures on the node at {@code url}, which nothing else may use while it runs: a warm-up of
   * each, then up to {@code rounds} rounds of {@code orders} pairs each, fewer if {@code maxTime}
   * has passed at the end of a round.
   */
  static Result measure(String url, int orders, int rounds, Duration maxTime) {
    if (orders < 1 || rounds < 1) {
      throw new IllegalArgumentException(
          "orders and rounds must be at least 1, got orders=" + orders + ", rounds=" + rounds);
    }
    String prefix = Orders.newRunPrefix();
    long deadline = System.nanoTime() + maxTime.toNanos();
    try (RedisOrderStore store = RedisOrderStore.builder().url(url).keyPrefix(prefix).build();
        UnifiedJedis floorClient = RawRedis.nodeClient(url);
        Jedis stats = new Jedis(URI.create(url))) {
      FencedCasFloor floor = new FencedCasFloor(floorClient, prefix + "floor:");
      storePairs(store, prefix + "ws_", Math.min(orders, 2_000)); // warm-up: JIT, script caches
      floorPairs(floor, prefix + "wf_", Math.min(orders, 2_000));
      List<Round> done = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        boolean storeFirst = r % 2 == 1;
        String ids = prefix + "r" + r + "_";
        Runnable storeTurn = () -> storePairs(store, ids + "s_", orders);
        Runnable floorTurn = () -> floorPairs(floor, ids + "f_", orders);
        double first = perPair(stats, storeFirst ? storeTurn : floorTurn, orders);
        double second = perPair(stats, storeFirst ? floorTurn : storeTurn, orders);
        done.add(
            new Round(r, storeFirst, storeFirst ? first : second, storeFirst ? second : first));
        if (System.nanoTime() > deadline) {
          break;
        }
      }
      return new Result(orders, List.copyOf(done));
    }
  }

  /** Redis's µs in scripts per pair while {@code turn} runs {@code orders} pairs. */
  private static double perPair(Jedis stats, Runnable turn, int orders) {
    long before = scriptMicros(stats);
    turn.run();
    return (double) (scriptMicros(stats) - before) / orders;
  }

  private static void storePairs(RedisOrderStore store, String ids, int orders) {
    for (int i = 0; i < orders; i++) {
      Orders.claimComplete(store, ids + i);
    }
  }

  private static void floorPairs(FencedCasFloor floor, String ids, int orders) {
    for (int i = 0; i < orders; i++) {
      floor.claimComplete(ids + i);
    }
  }

  /**
   * The usec Redis has spent in EVALSHA and EVAL since its start (or its last CONFIG RESETSTAT),
   * from INFO commandstats.
   */
  static long scriptMicros(Jedis stats) {
    long usec = 0;
    for (String line : stats.info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
          if (field.startsWith("usec=")) {
            usec += Long.parseLong(field.substring("usec=".length()));
          }
        }
      }
    }
    return usec;
  }

  private static double median(DoubleStream values) {
    return Ratio.median(values.sorted().toArray());
  }
}
