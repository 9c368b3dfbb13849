package org.fencekit.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The peers: a lock library's lock + unlock ({@link Peer}), each thread on a lock of its own; the
 * main job pairs its states with the store's in one fork ({@link PairedBenchmark#overPeer}) for
 * "fencekit / peer". One operation is one lock and one unlock, against a store's claim and
 * complete.
 *
 * <p>Run (after {@code ./mvnw -q package -DskipTests}, with the servers' variables set):
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main PeerLockBenchmark \
 *     -p peer=SHEDLOCK_JDBC,SHEDLOCK_REDIS,REDISSON_FENCED -t 4 -prof gc -rf json -rff peers.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PeerLockBenchmark {

  /** The library, shared by the threads of a run. */
  @State(Scope.Benchmark)
  public static class Library {

    /** Which library; every constant of {@link Peer} unless {@code -p peer=...}. */
    @Param public Peer peer;

    PeerLock lock;
    private Namespace namespace;
    private final AtomicInteger threads = new AtomicInteger();

    /**
     * Opens the library in a fresh namespace, with a connection per thread where it pools; fails
     * naming its server's variable if that is not set.
     */
    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
      namespace = Namespace.fresh();
      lock = peer.open(namespace, Server.environment(), params.getThreads());
    }

    /** Closes it and drops its namespace. */
    @TearDown(Level.Trial)
    public void close() {
      Namespace.closeThenDrop(lock, namespace, peer.server());
    }
  }

  /** One thread's lock. */
  @State(Scope.Thread)
  public static class Holder {
    PeerLock.Session session;

    /** Takes this thread's lock. */
    @Setup(Level.Trial)
    public void open(Library library) {
      session = library.lock.session(library.threads.getAndIncrement());
    }
  }

  /** Locks this thread's lock and unlocks it. */
  @Benchmark
  public void lockUnlock(Holder holder) {
    holder.session.lockUnlock();
  }
}
