package org.fencekit.server;

/** The black-box runner against the server jar on a SQLite file of its own. */
class SqliteBlackBoxRunIT extends BlackBoxRunContract {

  @Override
  String storeSpec() {
    return "sqlite:" + directory.resolve("orders.db");
  }
}
