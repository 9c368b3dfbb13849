package org.fencekit.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a claim + complete costs etcd, beside its raw baseline ({@link RawEtcd}: the store's two
 * transactions through bare jetcd) and etcd's lock service's lock + unlock ({@link Peer#ETCD_LOCK})
 * ({@link CostProbe}): each subject under a key prefix of its own (deleted at the end) on the
 * members at {@code --url}, one thread. Per operation, from each member's Prometheus endpoint
 * ({@code /metrics} on its client URL, read over HTTP, so not a gRPC request) before and after each
 * turn, summed over the members given (the figures are the subjects' only on a cluster nothing else
 * uses; a single member of its own is what the README's run uses):
 *
 * <ul>
 *   <li>gRPC requests: {@code grpc_server_handled_total}, every service and method; Txn: those of
 *       {@code etcdserverpb.KV/Txn};
 *   <li>keys written: {@code etcd_mvcc_put_total + etcd_mvcc_delete_total}, the lock service's own
 *       writes included (on a cluster, each member counts every write);
 *   <li>WAL (B) and WAL fsyncs: {@code etcd_disk_wal_write_bytes_total} and {@code
 *       etcd_disk_wal_fsync_duration_seconds_count};
 *   <li>server CPU: {@code process_cpu_seconds_total}, which etcd reads from its own {@code
 *       /proc/self/stat} (utime + stime, in 10 ms ticks): the member's CPU with no pid to find, on
 *       this machine or another.
 * </ul>
 *
 * jetcd works on gRPC's and Netty's threads, which the calling thread's CPU time leaves out: read
 * its client JVM CPU.
 *
 * <pre>
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.EtcdCost \
 *   --url http://127.0.0.1:PORT --orders 500 --runs 5
 * </pre>
 */
public final class EtcdCost {

  static final String FENCEKIT = "fencekit";
  static final String ETCD_LOCK = "etcd lock";

  static final String REQUESTS = "gRPC requests";
  static final String TXNS = "gRPC Txn";
  static final String KEYS = "keys written";
  static final String WAL = "WAL (B)";
  static final String FSYNCS = "WAL fsyncs";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private EtcdCost() {}

  /** Runs the probe; {@code --help} lists the options. */
  public static void main(String[] args) {
    System.exit(
        CostCommand.run(
            "java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.EtcdCost",
            "What a claim + complete costs etcd beside its raw baseline (bare jetcd) and etcd's"
                + " lock service's lock + unlock, per operation, from the members' metrics.",
            EtcdCost::measure,
            args,
            System.out));
  }

  /**
   * Measures on the members {@code endpoints} ({@code http://host:port,...}; {@code runs} runs of
   * {@code orders} fresh orders per subject), each subject under a key prefix of its own, deleted
   * at the end.
   */
  static CostProbe.Result measure(String endpoints, int orders, int runs) {
    Map<String, String> env = Map.of(Server.ETCD.variable(), endpoints);
    Server.ETCD.lookup(env); // checks the endpoints, naming the variable
    List<URI> metrics =
        Arrays.stream(endpoints.split(","))
            .map(e -> URI.create(e.trim().replaceAll("/+$", "") + "/metrics"))
            .toList();
    Meter meter = new Meter(metrics);
    String version = meter.version();
    Clock clock = Clock.systemUTC();
    List<Namespace> namespaces = List.of(Namespace.fresh(), Namespace.fresh(), Namespace.fresh());
    try (CostProbe.Opened opened = new CostProbe.Opened()) {
      opened.add(
          CostProbe.store(FENCEKIT, null, StoreType.ETCD.open(clock, namespaces.get(0), env, 1)));
      opened.add(CostProbe.raw(null, RawBaseline.ETCD_JETCD.open(namespaces.get(1), env)));
      opened.add(CostProbe.peer(ETCD_LOCK, null, Peer.ETCD_LOCK.open(namespaces.get(2), env, 1)));
      return CostProbe.measure(
          "etcd "
              + version
              + " ("
              + metrics.size()
              + (metrics.size() == 1 ? " member" : " members")
              + "), one thread, claim + complete (the lock: lock + unlock)",
          opened.list(),
          meter,
          orders,
          runs);
    } finally {
      for (Namespace namespace : namespaces) {
        namespace.drop(Server.ETCD, env);
      }
    }
  }

  /** The members' counters before and after each turn, summed. */
  private record Meter(List<URI> metrics) implements CostProbe.Meter {

    @Override
    public Turn begin(CostProbe.Subject subject) {
      return CostProbe.Meter.difference(this::read);
    }

    /** The first member's {@code etcd_server_version}, or "?" if it publishes none. */
    String version() {
      for (String line : scrape(metrics.get(0)).split("\n")) {
        if (line.startsWith("etcd_server_version{")) {
          int start = line.indexOf("server_version=\"") + "server_version=\"".length();
          return line.substring(start, line.indexOf('"', start));
        }
      }
      return "?";
    }

    private Map<String, Double> read() {
      Map<String, Double> values = new LinkedHashMap<>();
      for (String figure : List.of(REQUESTS, TXNS, KEYS, WAL, FSYNCS, CostProbe.SERVER_CPU)) {
        values.put(figure, Double.NaN); // stays NaN where no member publishes it
      }
      for (URI member : metrics) {
        for (String line : scrape(member).split("\n")) {
          String figure = figure(line);
          if (figure != null) {
            double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            add(values, figure, figure.equals(CostProbe.SERVER_CPU) ? value * 1e6 : value);
            if (figure.equals(REQUESTS)) {
              add(values, TXNS, line.contains("grpc_method=\"Txn\"") ? value : 0);
            }
          }
        }
      }
      return values;
    }

    private static void add(Map<String, Double> values, String figure, double value) {
      values.merge(figure, value, (sum, more) -> Double.isNaN(sum) ? more : sum + more);
    }

    /** The figure a line of the exposition adds to, or null. */
    private static String figure(String line) {
      if (line.startsWith("grpc_server_handled_total{")) {
        return REQUESTS;
      } else if (line.startsWith("etcd_mvcc_put_total ")
          || line.startsWith("etcd_mvcc_delete_total ")) {
        return KEYS;
      } else if (line.startsWith("etcd_disk_wal_write_bytes_total ")) {
        return WAL;
      } else if (line.startsWith("etcd_disk_wal_fsync_duration_seconds_count ")) {
        return FSYNCS;
      } else if (line.startsWith("process_cpu_seconds_total ")) {
        return CostProbe.SERVER_CPU;
      }
      return null;
    }

    private static String scrape(URI uri) {
      try {
        HttpResponse<String> answer =
            HTTP.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
          throw new IllegalStateException(
              uri
                  + " answered HTTP "
                  + answer.statusCode()
                  + ": is it an etcd member's client URL?");
        }
        return answer.body();
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot read etcd's metrics at " + uri + " (" + e + "); is the member up at --url?", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted reading " + uri, e);
      }
    }
  }
}
