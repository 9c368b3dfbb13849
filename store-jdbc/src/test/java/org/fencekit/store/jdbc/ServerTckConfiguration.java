package org.fencekit.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.AfterEach;

/**
 * The whole TCK against a store on a database server ({@link PooledStoreBuilder}), in one
 * configuration per subclass: how both stores reach the server ({@link Connections}) and whether
 * each takes its single-statement fast path. The peer store is always a second store with its own
 * connections. A store's own base class says where its database or schema is, how its builder is
 * made and its driver's unpooled DataSource; each configuration is a top-level test class:
 * Surefire's summary merges tests of one top-level class by method name, so nested configurations
 * of one suite would be counted once when one of them is skipped.
 *
 * @param <B> the store's builder
 */
public abstract class ServerTckConfiguration<B extends PooledStoreBuilder<B>>
    extends OrderStoreTck {

  /** How a store reaches the server. */
  public enum Connections {
    /** A HikariCP pool the store builds from the JDBC URL (and closes). */
    OWNED_POOL,
    /**
     * The user's DataSource, unpooled: every call opens a connection of its own, so no call can
     * lean on session state left by another.
     */
    UNPOOLED_DATA_SOURCE,
    /**
     * The user's own HikariCP pool (four connections), which the store uses and does not close: the
     * DataSource a shop already has (the benchmarks' peers run on one too).
     */
    USER_POOL
  }

  /** The users' pools this test made, closed after its stores. */
  private final List<HikariDataSource> userPools = new ArrayList<>();

  private final Connections connections;
  private final boolean fastPath;
  private final boolean peerFastPath;

  /**
   * @param connections how both stores reach the server
   * @param fastPath whether the store under test takes the single-statement fast path
   * @param peerFastPath whether its peer does
   */
  protected ServerTckConfiguration(
      Connections connections, boolean fastPath, boolean peerFastPath) {
    this.connections = connections;
    this.fastPath = fastPath;
    this.peerFastPath = peerFastPath;
  }

  /**
   * @return the JDBC URL of this test class's database or schema
   */
  protected abstract String jdbcUrl();

  /**
   * @return the store's builder on this test class's database or schema, nothing else set
   */
  protected abstract B newBuilder();

  /**
   * @return the driver's own DataSource on {@code jdbcUrl}, which opens a connection per call
   */
  protected abstract DataSource unpooledDataSource(String jdbcUrl);

  @Override
  protected OrderStore newStore(TestClock clock) {
    return store(clock, true, fastPath);
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return store(clock, false, peerFastPath);
  }

  /*
   * Without a pool every call opens a connection (a server process or thread and a login), so the
   * races below run at a smaller count there: what this configuration adds is that no call leans on
   * session state left by another, which every rule checks at any count. Each rule still runs at
   * the TCK's full count on the owned pool with the same fast-path setting (OwnedPool*TckTest).
   */

  /** An eighth of the default (240) without a pool. */
  @Override
  protected int stressOrders() {
    return connections == Connections.UNPOOLED_DATA_SOURCE ? 30 : super.stressOrders();
  }

  /** A quarter of the default (48) without a pool. */
  @Override
  protected int settleRaceRounds() {
    return connections == Connections.UNPOOLED_DATA_SOURCE ? 12 : super.settleRaceRounds();
  }

  /** A sixth of the default (48) without a pool. */
  @Override
  protected int markRaceRounds() {
    return connections == Connections.UNPOOLED_DATA_SOURCE ? 8 : super.markRaceRounds();
  }

  /** Half the default (4) without a pool. */
  @Override
  protected int linearizabilityHistories() {
    return connections == Connections.UNPOOLED_DATA_SOURCE ? 2 : super.linearizabilityHistories();
  }

  /** Six of the 17 layout characters without a pool, drawn with the run's seed. */
  @Override
  protected int layoutCharacters() {
    return connections == Connections.UNPOOLED_DATA_SOURCE ? 6 : super.layoutCharacters();
  }

  @AfterEach
  void closeUserPools() {
    userPools.forEach(HikariDataSource::close);
    userPools.clear();
  }

  private OrderStore store(TestClock clock, boolean createSchema, boolean fastPath) {
    B builder =
        newBuilder().createSchema(createSchema).singleStatementFastPath(fastPath).clock(clock);
    if (connections == Connections.OWNED_POOL) {
      return builder.jdbcUrl(jdbcUrl()).maximumPoolSize(4).build();
    }
    if (connections == Connections.USER_POOL) {
      HikariDataSource pool = new HikariDataSource();
      pool.setJdbcUrl(jdbcUrl());
      pool.setMaximumPoolSize(4);
      userPools.add(pool);
      return builder.dataSource(pool).build();
    }
    return builder.dataSource(unpooledDataSource(jdbcUrl())).build();
  }
}
