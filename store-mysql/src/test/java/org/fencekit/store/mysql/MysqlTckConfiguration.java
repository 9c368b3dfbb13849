package org.fencekit.store.mysql;

import com.mysql.cj.jdbc.MysqlDataSource;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole TCK against a real MySQL or MariaDB (see {@link TestMysql}), in one configuration per
 * subclass, each in a database of its own with a random name, dropped afterwards. The peer store is
 * always a second store with its own connections. Each configuration is a top-level test class.
 */
abstract class MysqlTckConfiguration extends OrderStoreTck {

  @RegisterExtension static final TestMysql.ClassDatabase database = TestMysql.databasePerClass();

  /** How a store reaches the server. */
  enum Connections {
    /** A HikariCP pool the store builds from the JDBC URL (and closes), at READ COMMITTED. */
    OWNED_POOL,
    /**
     * The user's DataSource, unpooled: every call opens a connection of its own, at the server's
     * default isolation (REPEATABLE READ), so no call can lean on session state left by another.
     */
    UNPOOLED_DATA_SOURCE,
    /**
     * The user's own HikariCP pool (four connections), left at the server's default REPEATABLE
     * READ: the store sets READ COMMITTED in each of its transactions and must leave the pool's
     * connections as it was lent them.
     */
    USER_POOL
  }

  /** The users' pools this test made, closed after its stores. */
  private final List<HikariDataSource> userPools = new ArrayList<>();

  private final Connections connections;
  private final boolean fastPath;
  private final boolean peerFastPath;

  MysqlTckConfiguration(Connections connections, boolean fastPath, boolean peerFastPath) {
    this.connections = connections;
    this.fastPath = fastPath;
    this.peerFastPath = peerFastPath;
  }

  @Override
  protected OrderStore newStore(TestClock clock) {
    return store(clock, true, fastPath);
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return store(clock, false, peerFastPath);
  }

  /*
   * Without a pool every call opens a connection (a server thread and a login), so the races below run
   * at a smaller count there: what this configuration adds is that no call leans on session state
   * left by another, which every rule checks at any count. Each rule still runs at the TCK's full
   * count on the owned pool with the same fast-path setting (OwnedPool*TckTest).
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

  @AfterEach
  void closeUserPools() {
    userPools.forEach(HikariDataSource::close);
    userPools.clear();
  }

  private OrderStore store(TestClock clock, boolean createSchema, boolean fastPath) {
    MysqlOrderStore.Builder builder =
        MysqlOrderStore.builder()
            .createSchema(createSchema)
            .singleStatementFastPath(fastPath)
            .clock(clock);
    if (connections == Connections.OWNED_POOL) {
      return builder.jdbcUrl(database.jdbcUrl()).maximumPoolSize(4).build();
    }
    if (connections == Connections.USER_POOL) {
      HikariDataSource pool = new HikariDataSource();
      pool.setJdbcUrl(database.jdbcUrl());
      pool.setMaximumPoolSize(4);
      userPools.add(pool);
      return builder.dataSource(pool).build();
    }
    MysqlDataSource dataSource = new MysqlDataSource();
    dataSource.setURL(database.jdbcUrl());
    return builder.dataSource(dataSource).build();
  }
}
