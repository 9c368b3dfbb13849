package org.fencekit.store.mysql;

import com.mysql.cj.jdbc.MysqlDataSource;
import javax.sql.DataSource;
import org.fencekit.store.jdbc.ServerTckConfiguration;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole TCK against a real MySQL or MariaDB (see {@link TestMysql}), in one configuration per
 * subclass ({@link ServerTckConfiguration}), each in a database of its own with a random name,
 * dropped afterwards. A pool the store builds runs at READ COMMITTED; an unpooled DataSource and
 * the user's pool are left at the server's default REPEATABLE READ: the store sets READ COMMITTED
 * in each of its transactions and must leave the connections as it was lent them.
 */
abstract class MysqlTckConfiguration extends ServerTckConfiguration<MysqlOrderStore.Builder> {

  @RegisterExtension static final TestMysql.ClassDatabase database = TestMysql.databasePerClass();

  MysqlTckConfiguration(Connections connections, boolean fastPath, boolean peerFastPath) {
    super(connections, fastPath, peerFastPath);
  }

  @Override
  protected String jdbcUrl() {
    return database.jdbcUrl();
  }

  @Override
  protected MysqlOrderStore.Builder newBuilder() {
    return MysqlOrderStore.builder();
  }

  @Override
  protected DataSource unpooledDataSource(String jdbcUrl) {
    MysqlDataSource dataSource = new MysqlDataSource();
    dataSource.setURL(jdbcUrl);
    return dataSource;
  }
}
