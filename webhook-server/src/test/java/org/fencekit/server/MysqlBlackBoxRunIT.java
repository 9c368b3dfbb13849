package org.fencekit.server;

import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The black-box runner against the server jar on MySQL / MariaDB (a {@code jdbc:mysql:} store
 * string), in a database of its own, dropped afterwards. Skipped, saying how to enable it, without
 * {@code FENCEKIT_MYSQL_URL} (or Docker); failed instead with {@code
 * FENCEKIT_REQUIRE_BACKENDS=true}.
 */
class MysqlBlackBoxRunIT extends BlackBoxRunContract {

  @RegisterExtension static final TestMysql.ClassDatabase DATABASE = TestMysql.databasePerClass();

  @Override
  String storeSpec() {
    return DATABASE.jdbcUrl();
  }
}
