package org.fencekit.admin;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.UnknownOrphanException;
import org.fencekit.store.spi.Validate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code orphans list | show | reconcile}: the purchases replaced attempts made, real money kept
 * until someone deals with it.
 */
@Command(
    name = "orphans",
    description =
        "Lists, shows and reconciles orphans: items a replaced attempt bought, kept until someone"
            + " refunds or delivers them.",
    mixinStandardHelpOptions = true,
    subcommands = {
      OrphansCommand.ListOrphans.class,
      OrphansCommand.Show.class,
      OrphansCommand.Reconcile.class
    })
final class OrphansCommand implements Runnable {

  @Override
  public void run() {
    throw new Problem(
        ExitCode.USAGE, "name a subcommand: orphans list, orphans show or orphans reconcile");
  }

  /** The three parts of an orphan's identity, as positional parameters. */
  static final class Identity {
    @Parameters(index = "0", paramLabel = "SESSION", description = "the order's session id")
    String sessionId;

    @Parameters(
        index = "1",
        paramLabel = "CLAIM",
        description = "the token that bought it, FENCE:NONCE, as listed")
    String claim;

    @Parameters(index = "2", paramLabel = "PROVIDER_ORDER", description = "the provider's id")
    String providerOrderId;

    OrphanId id() {
      return new OrphanId(sessionId, ClaimId.parse(claim), providerOrderId);
    }
  }

  /** {@code orphans list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Lists the orphans nobody has reconciled yet, across all orders, oldest first.",
        "Exits 1 when it lists any."
      })
  static final class ListOrphans extends StoreCommand {

    @Mixin PageOptions paging;

    @Override
    int run(OrderStore store, Output output) {
      return paging.list(
          output,
          cursor -> admin(store).unreconciledOrphans(cursor, paging.pageSize),
          Views.ORPHAN_COLUMNS,
          Views::orphanRow,
          Views::orphan,
          "unreconciled orphan");
    }
  }

  /** {@code orphans show SESSION [CLAIM PROVIDER_ORDER]}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = {
        "Shows one orphan (SESSION CLAIM PROVIDER_ORDER, as listed), or every orphan of an order"
            + " (SESSION alone), reconciled or not.",
        "Exits 1 when there is none."
      })
  static final class Show extends StoreCommand {

    @Parameters(index = "0", paramLabel = "SESSION", description = "the order's session id")
    String sessionId;

    @Parameters(
        index = "1..2",
        arity = "0..2",
        paramLabel = "CLAIM PROVIDER_ORDER",
        description = "the token that bought it (FENCE:NONCE) and the provider's id")
    List<String> rest;

    @Override
    void validate() {
      Validate.sessionId(sessionId);
      if (rest != null && rest.size() == 1) {
        throw new IllegalArgumentException(
            "give SESSION alone, or SESSION CLAIM PROVIDER_ORDER; got a CLAIM without a"
                + " PROVIDER_ORDER");
      }
      if (rest != null && rest.size() == 2) {
        id();
      }
    }

    private OrphanId id() {
      return new OrphanId(sessionId, ClaimId.parse(rest.get(0)), rest.get(1));
    }

    @Override
    int run(OrderStore store, Output output) {
      boolean wholeOrder = rest == null || rest.isEmpty();
      List<OrphanRecord> found =
          wholeOrder
              ? OrdersCommand.orphans(store, sessionId)
              : admin(store).orphan(id()).map(List::of).orElse(List.of());
      if (found.isEmpty()) {
        String none = wholeOrder ? "order '" + sessionId + "' has no orphans" : "no " + id();
        throw new Problem(ExitCode.FOUND, none + " in " + store);
      }
      if (output.json()) {
        output.printJson(found.stream().map(Views::orphan).toList());
      } else if (found.size() == 1) {
        output.fields(fields(found.get(0)));
      } else {
        output.table(Views.ORPHAN_COLUMNS, found.stream().map(Views::orphanRow).toList());
      }
      return ExitCode.OK;
    }
  }

  static Map<String, String> fields(OrphanRecord record) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("order", record.orphan().sessionId());
    fields.put("claim", record.orphan().claimId().toString());
    fields.put("provider order", record.orphan().item().providerOrderId());
    fields.put("payload", record.orphan().item().payload());
    fields.put("recorded at", Views.withAge(record.orphan().recordedAt(), Instant.now()));
    fields.put("reconciled", record.reconciled() ? Views.text(record.reconciledAt()) : "no");
    fields.put("note", record.note());
    return fields;
  }

  /** {@code orphans reconcile SESSION CLAIM PROVIDER_ORDER --note TEXT}. */
  @Command(
      name = "reconcile",
      mixinStandardHelpOptions = true,
      description = {
        "Marks an orphan reconciled with a note saying what was done (refunded, delivered by"
            + " hand). It leaves `orphans list`; its record is kept. The same note again changes"
            + " nothing.",
        "Exits 1 when there is no such orphan, or it was reconciled before with another note"
            + " (printed; nothing changes)."
      })
  static final class Reconcile extends StoreCommand {

    @Mixin Identity identity;

    @Option(
        names = "--note",
        required = true,
        paramLabel = "TEXT",
        description = "what was done, at most " + OrderStoreAdmin.MAX_NOTE_LENGTH + " chars")
    String note;

    @Override
    void validate() {
      identity.id();
      Validate.text("--note", note, OrderStoreAdmin.MAX_NOTE_LENGTH);
    }

    @Override
    int run(OrderStore store, Output output) {
      ReconcileResult result;
      try {
        result = admin(store).reconcile(identity.id(), note, Instant.now());
      } catch (UnknownOrphanException e) {
        throw new Problem(
            ExitCode.FOUND, "no " + identity.id() + " in " + store + ": " + e.getMessage());
      }
      boolean already = result instanceof ReconcileResult.AlreadyReconciled;
      if (output.json()) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("outcome", already ? "already_reconciled" : "reconciled");
        json.put("orphan", Views.orphan(result.orphan()));
        output.printJson(json);
      } else {
        output.line(
            already ? "already reconciled with another note; nothing changed:" : "reconciled:");
        output.fields(fields(result.orphan()));
      }
      return already ? ExitCode.FOUND : ExitCode.OK;
    }
  }
}
