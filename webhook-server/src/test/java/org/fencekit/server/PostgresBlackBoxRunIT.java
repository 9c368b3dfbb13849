package org.fencekit.server;

import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The black-box runner against the server jar on PostgreSQL, in a schema of its own (the URL's
 * currentSchema), dropped afterwards. Skipped, saying how to enable it, without {@code
 * FENCEKIT_POSTGRES_URL} (or Docker); failed instead with {@code FENCEKIT_REQUIRE_BACKENDS=true}.
 */
class PostgresBlackBoxRunIT extends BlackBoxRunContract {

  @RegisterExtension static final TestPostgres.ClassSchema SCHEMA = TestPostgres.schemaPerClass();

  @Override
  String storeSpec() {
    String url = SCHEMA.jdbcUrl();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA.name();
  }
}
