package org.fencekit.admin;

import java.util.concurrent.Callable;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import picocli.CommandLine;

/** A subcommand that opens the store, does its work, prints, and closes the store. */
abstract class StoreCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec command;

  StoreOptions options;

  /** Whether the command may create or upgrade the store's tables. */
  boolean migrates() {
    return false;
  }

  @Override
  public final Integer call() {
    options = ((AdminCommand) command.root().userObject()).options;
    validate();
    Output output = new Output(command.commandLine().getOut(), options.json, options::redact);
    OrderStore store;
    try {
      store = options.open(migrates());
    } catch (Problem refusal) {
      return refused(refusal, output);
    }
    try (store) {
      return run(store, output);
    }
  }

  /** What to do when the store refuses to open (a missing file, an older schema): fail. */
  int refused(Problem refusal, Output output) {
    throw refusal;
  }

  /** Checks the arguments before the store is opened; a bad one is a usage error. */
  void validate() {}

  /** Does the work on the open store; returns the exit code. */
  abstract int run(OrderStore store, Output output);

  /** The store's operator queries, or a problem saying the store has none. */
  static OrderStoreAdmin admin(OrderStore store) {
    if (store instanceof OrderStoreAdmin admin) {
      return admin;
    }
    throw new Problem(
        ExitCode.UNAVAILABLE,
        store
            + " does not offer the operator's queries (OrderStoreAdmin): upgrade it to a fencekit"
            + " version whose store implements them");
  }
}
