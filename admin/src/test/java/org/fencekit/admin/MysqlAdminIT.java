package org.fencekit.admin;

import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin jar on MySQL / MariaDB, in a database of its own (the URL's database). */
class MysqlAdminIT extends AdminQueriesContract {

  @RegisterExtension static final TestMysql.ClassDatabase DATABASE = TestMysql.databasePerClass();

  @Override
  String storeSpec() {
    return DATABASE.jdbcUrl();
  }

  @Override
  String unreachableSpec() {
    return "jdbc:mysql://127.0.0.1:1/test?user=root&password=" + SECRET + "&connectTimeout=2000";
  }
}
