package org.fencekit.admin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.spec.StoreSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The options every subcommand takes: which store, how to print. They belong to the top command and
 * are inherited by every subcommand, so they are taken before the subcommand, after it, or between
 * its words. The store is opened without creating or upgrading anything, unless {@code schema
 * migrate} asks for it.
 */
final class StoreOptions {

  static final String STORE_VARIABLE = "FENCEKIT_STORE";

  @Option(
      names = "--store",
      scope = ScopeType.INHERIT,
      paramLabel = "SPEC",
      defaultValue = "${env:FENCEKIT_STORE}",
      description = "the store: " + StoreSpec.FORMS + " (default: the FENCEKIT_STORE variable)")
  String store;

  @Option(
      names = "--key-prefix",
      scope = ScopeType.INHERIT,
      paramLabel = "PREFIX",
      defaultValue = "${env:FENCEKIT_REDIS_KEY_PREFIX:-fencekit:}",
      description =
          "a Redis store's key prefix, and an etcd store's when its URL names none (default:"
              + " ${DEFAULT-VALUE})")
  String keyPrefix;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "print JSON instead of a table")
  boolean json;

  private StoreSpec spec;

  /** The parsed spec; a usage problem if it is missing or malformed. */
  StoreSpec spec() {
    if (spec == null) {
      if (store == null || store.isBlank()) {
        throw new Problem(
            ExitCode.USAGE,
            ("no store given: pass --store SPEC or set %s, one of %s (e.g. --store"
                    + " sqlite:fencekit-orders.db)")
                .formatted(STORE_VARIABLE, StoreSpec.FORMS));
      }
      spec = StoreSpec.parse("--store (or " + STORE_VARIABLE + ")", store);
    }
    return spec;
  }

  /**
   * Opens the store.
   *
   * @param migrate whether the store may create or upgrade its tables
   */
  OrderStore open(boolean migrate) {
    StoreSpec target = spec();
    if (target.kind() == StoreSpec.Kind.SQLITE && !migrate) {
      Path file = Path.of(target.target());
      if (!Files.isRegularFile(file)) {
        throw new Problem(
            ExitCode.UNAVAILABLE,
            "the SQLite file "
                + file.toAbsolutePath()
                + " does not exist: check the path (it is relative to the working directory);"
                + " `fencekit-admin schema migrate` creates it");
      }
    }
    try {
      // a command runs once: a SQL server that does not answer fails it now, not after a second
      // connection timeout at its first call
      return target.open(Clock.systemUTC(), migrate, true, keyPrefix);
    } catch (IllegalStateException e) {
      String hint = migrate ? "" : ". `fencekit-admin schema check` says what the schema lacks";
      throw new Problem(
          ExitCode.UNAVAILABLE,
          "the store " + target + " refused to open: " + e.getMessage() + hint);
    }
  }

  /** {@code text} without the store's password. */
  String redact(String text) {
    if (text == null) {
      return null;
    }
    return spec != null ? spec.redact(text) : StoreSpec.redacted(text);
  }
}
