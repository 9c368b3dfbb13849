package org.fencekit.admin;

import java.util.Map;
import org.fencekit.store.OrderStore;
import picocli.CommandLine.Command;

/**
 * {@code schema check | migrate}: whether the store's tables (or keys) are the version it needs.
 */
@Command(
    name = "schema",
    description =
        "Checks or upgrades the store's schema (SQL tables, Redis key layout; etcd has none).",
    mixinStandardHelpOptions = true,
    subcommands = {SchemaCommand.Check.class, SchemaCommand.Migrate.class})
final class SchemaCommand implements Runnable {

  @Override
  public void run() {
    throw new Problem(ExitCode.USAGE, "name a subcommand: schema check or schema migrate");
  }

  /** {@code schema check}. */
  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = {
        "Opens the store without changing anything and says whether its schema is the version"
            + " this fencekit needs, and if not, what to run.",
        "Exits 1 when the schema is missing, older or newer."
      })
  static final class Check extends Current {

    @Override
    int refused(Problem refusal, Output output) {
      if (output.json()) {
        output.printJson(Map.of("current", false, "reason", refusal.getMessage()));
      } else {
        output.line("NOT CURRENT: " + refusal.getMessage());
      }
      return ExitCode.FOUND;
    }
  }

  /** Prints that the store's schema (on Redis, its key layout) is the one this fencekit needs. */
  abstract static class Current extends StoreCommand {
    @Override
    int run(OrderStore store, Output output) {
      String current =
          switch (options.spec().kind()) {
            case REDIS, REDIS_CLUSTER -> " has the key layout this fencekit needs (version 3)";
            case ETCD -> " keeps no schema and no layout version: there is nothing to upgrade";
            default -> " has the schema this fencekit needs";
          };
      if (output.json()) {
        output.printJson(Map.of("current", true, "store", store.toString()));
      } else {
        output.line("current: " + store + current);
      }
      return ExitCode.OK;
    }
  }

  /** {@code schema migrate}. */
  @Command(
      name = "migrate",
      mixinStandardHelpOptions = true,
      description = {
        "Creates the store's tables if missing, or upgrades an older schema, in one transaction;"
            + " on Redis, brings the orders of an older key layout into the current one once."
            + " Safe to run again, and from several processes at once. Refuses a newer schema or"
            + " layout.",
      })
  static final class Migrate extends Current {

    @Override
    boolean migrates() {
      return true;
    }
  }
}
