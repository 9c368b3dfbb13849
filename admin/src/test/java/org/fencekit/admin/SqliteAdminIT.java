package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fencekit.admin.AdminProcess.Run;
import org.junit.jupiter.api.Test;

/** The admin jar on a SQLite file. */
class SqliteAdminIT extends AdminQueriesContract {

  @Override
  String storeSpec() {
    return "sqlite:" + directory.resolve("orders.db");
  }

  @Override
  String unreachableSpec() {
    return "sqlite:" + directory.resolve("missing.db");
  }

  @Test
  void aMissingFileIsNotCreatedByAQuery() throws Exception {
    Run run = admin("orders", "show", "cs_x");
    assertEquals(2, run.exitCode(), run.toString());
    assertTrue(run.err().contains("does not exist"), run.toString());
    assertTrue(!directory.resolve("orders.db").toFile().exists(), "a query created the file");
    Run check = admin("schema", "check");
    assertEquals(1, check.exitCode(), check.toString());
    assertTrue(check.out().contains("schema migrate"), check.toString());
  }
}
