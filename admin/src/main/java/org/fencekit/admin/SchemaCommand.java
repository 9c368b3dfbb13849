package org.fencekit.admin;

import java.util.Map;
import org.fencekit.store.OrderStore;
import org.fencekit.store.spec.StoreSpec;
import picocli.CommandLine.Command;

/**
 * {@code schema check | migrate}: whether the store's tables (or keys) are the version it needs.
 */
@Command(
    name = "schema",
    description = "Checks or upgrades the store's schema (SQL tables, Redis key layout).",
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
  static final class Check extends StoreCommand {

    @Override
    int refused(Problem refusal, Output output) {
      if (output.json()) {
        output.printJson(Map.of("current", false, "reason", refusal.getMessage()));
      } else {
        output.line("NOT CURRENT: " + refusal.getMessage());
      }
      return ExitCode.FOUND;
    }

    @Override
    int run(OrderStore store, Output output) {
      return current(store, output, options);
    }
  }

  /** Prints that the store's schema is current; on Redis, that its keys carry no version yet. */
  static int current(OrderStore store, Output output, StoreOptions options) {
    boolean redis =
        options.spec().kind() == StoreSpec.Kind.REDIS
            || options.spec().kind() == StoreSpec.Kind.REDIS_CLUSTER;
    String note =
        redis ? " (its keys carry no layout version yet: nothing to check or migrate)" : "";
    if (output.json()) {
      output.printJson(Map.of("current", true, "store", store.toString(), "versioned", !redis));
    } else {
      output.line(
          "current: "
              + store
              + (redis ? " answers" + note : " has the schema this fencekit needs"));
    }
    return ExitCode.OK;
  }

  /** {@code schema migrate}. */
  @Command(
      name = "migrate",
      mixinStandardHelpOptions = true,
      description = {
        "Creates the store's tables if missing, or upgrades an older schema, in one transaction;"
            + " safe to run again, and from several processes at once. Refuses a newer schema.",
      })
  static final class Migrate extends StoreCommand {

    @Override
    boolean migrates() {
      return true;
    }

    @Override
    int run(OrderStore store, Output output) {
      return current(store, output, options);
    }
  }
}
