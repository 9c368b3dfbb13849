package org.fencekit.admin;

import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin jar on PostgreSQL, in a schema of its own (the URL's currentSchema). */
class PostgresAdminIT extends AdminQueriesContract {

  @RegisterExtension static final TestPostgres.ClassSchema SCHEMA = TestPostgres.schemaPerClass();

  @Override
  String storeSpec() {
    String url = SCHEMA.jdbcUrl();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA.name();
  }

  @Override
  String unreachableSpec() {
    return "jdbc:postgresql://127.0.0.1:1/test?user=postgres&password="
        + SECRET
        + "&connectTimeout=2";
  }
}
