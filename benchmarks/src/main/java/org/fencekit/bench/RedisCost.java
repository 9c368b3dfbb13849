package org.fencekit.bench;

import java.net.URI;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Jedis;

/**
 * What a claim + complete costs a Redis node, beside its raw baseline, its floor and indexed floor
 * ({@link FencedCasFloor}), ShedLock's lock + unlock and Redisson's {@code RFencedLock} ({@link
 * CostProbe}): each subject under a key prefix of its own (removed at the end) on the node at
 * {@code --url}, one thread. Per operation, from {@code INFO} before and after each turn (the
 * node's counters, so the figures are the subjects' only on a node nothing else uses):
 *
 * <ul>
 *   <li>commands: every command's calls ({@code INFO commandstats}), those a script runs included,
 *       the probe's {@code INFO} left out; scripts: the calls of {@code EVALSHA} and {@code EVAL};
 *   <li>script time: the usec of {@code EVALSHA} and {@code EVAL} (what {@link ScriptTime}
 *       compares);
 *   <li>server CPU: {@code used_cpu_user + used_cpu_sys} ({@code INFO cpu}), the whole node's.
 * </ul>
 *
 * Redisson works on its own I/O threads, which the calling thread's CPU time leaves out: read its
 * client JVM CPU.
 *
 * <pre>
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.RedisCost \
 *   --url redis://127.0.0.1:PORT --orders 2000 --runs 5
 * </pre>
 */
public final class RedisCost {

  static final String FENCEKIT = "fencekit";
  static final String SHEDLOCK = "ShedLock Redis";
  static final String REDISSON = "Redisson RFencedLock";

  static final String COMMANDS = "commands";
  static final String SCRIPTS = "scripts";
  static final String SCRIPT_TIME = "script time (µs)";

  private RedisCost() {}

  /** Runs the probe; {@code --help} lists the options. */
  public static void main(String[] args) {
    System.exit(
        CostCommand.run(
            "java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.RedisCost",
            "What a claim + complete costs a Redis node beside its raw baseline, its floor,"
                + " ShedLock's and Redisson's lock + unlock, per operation, from the node's side.",
            RedisCost::measure,
            args,
            System.out));
  }

  /**
   * Measures on the node at {@code url} ({@code runs} runs of {@code orders} fresh orders per
   * subject), each subject under a key prefix of its own, removed at the end.
   */
  static CostProbe.Result measure(String url, int orders, int runs) {
    Map<String, String> env = Map.of(Server.REDIS.variable(), url);
    Server.REDIS.lookup(env); // checks the URL, naming the variable
    Clock clock = Clock.systemUTC();
    List<Namespace> namespaces =
        List.of(
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh(),
            Namespace.fresh());
    try (CostProbe.Opened opened = new CostProbe.Opened();
        Jedis probe = new Jedis(URI.create(url))) {
      opened.add(
          CostProbe.store(FENCEKIT, null, StoreType.REDIS.open(clock, namespaces.get(0), env, 1)));
      opened.add(CostProbe.raw(null, RawBaseline.REDIS_EVALSHA.open(namespaces.get(1), env)));
      var client = RawRedis.nodeClient(url);
      FencedCasFloor floor = new FencedCasFloor(client, namespaces.get(2).keyPrefix());
      opened.add(new CostProbe.Subject(CostProbe.FLOOR, null, floor::claimComplete, client::close));
      var indexedClient = RawRedis.nodeClient(url);
      FencedCasFloor indexed = FencedCasFloor.indexed(indexedClient, namespaces.get(5).keyPrefix());
      opened.add(
          new CostProbe.Subject(
              CostProbe.INDEXED_FLOOR, null, indexed::claimComplete, indexedClient::close));
      opened.add(
          CostProbe.peer(SHEDLOCK, null, Peer.SHEDLOCK_REDIS.open(namespaces.get(3), env, 1)));
      opened.add(
          CostProbe.peer(REDISSON, null, Peer.REDISSON_FENCED.open(namespaces.get(4), env, 1)));
      return CostProbe.measure(
          "Redis "
              + probe
                  .info("server")
                  .lines()
                  .filter(l -> l.startsWith("redis_version:"))
                  .findFirst()
                  .orElse("?")
                  .substring("redis_version:".length())
                  .trim()
              + ", one thread, claim + complete (the peers: lock + unlock)",
          opened.list(),
          new Meter(probe),
          orders,
          runs);
    } finally {
      for (Namespace namespace : namespaces) {
        namespace.drop(Server.REDIS, env);
      }
    }
  }

  /** The node's INFO counters before and after each turn. */
  private record Meter(Jedis probe) implements CostProbe.Meter {

    @Override
    public Turn begin(CostProbe.Subject subject) {
      return CostProbe.Meter.difference(this::read);
    }

    private Map<String, Double> read() {
      double commands = 0;
      double scripts = 0;
      double scriptMicros = 0;
      for (String line : probe.info("commandstats").split("\r?\n")) {
        if (!line.startsWith("cmdstat_") || line.startsWith("cmdstat_info:")) {
          continue;
        }
        boolean script = line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:");
        for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
          String[] pair = field.split("=");
          if (pair[0].equals("calls")) {
            commands += Double.parseDouble(pair[1]);
            scripts += script ? Double.parseDouble(pair[1]) : 0;
          } else if (pair[0].equals("usec") && script) {
            scriptMicros += Double.parseDouble(pair[1]);
          }
        }
      }
      double cpuSeconds = 0;
      for (String line : probe.info("cpu").split("\r?\n")) {
        if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
          cpuSeconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      Map<String, Double> values = new LinkedHashMap<>();
      values.put(COMMANDS, commands);
      values.put(SCRIPTS, scripts);
      values.put(SCRIPT_TIME, scriptMicros);
      values.put(CostProbe.SERVER_CPU, cpuSeconds * 1_000_000);
      return values;
    }
  }
}
