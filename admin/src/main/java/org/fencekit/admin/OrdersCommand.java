package org.fencekit.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.spi.Validate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code orders show | stuck | failed | mismatches}: one order, or the orders that need a look. */
@Command(
    name = "orders",
    description = "Shows an order, or lists the orders that need a look.",
    mixinStandardHelpOptions = true,
    subcommands = {
      OrdersCommand.Show.class,
      OrdersCommand.Stuck.class,
      OrdersCommand.Failed.class,
      OrdersCommand.Mismatches.class
    })
final class OrdersCommand implements Runnable {

  @Override
  public void run() {
    throw new Problem(
        ExitCode.USAGE,
        "name a subcommand: orders show, orders stuck, orders failed or orders mismatches");
  }

  /** {@code orders show SESSION}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Shows one order as stored, and the orphans its replaced attempts bought.")
  static final class Show extends StoreCommand {

    @Parameters(paramLabel = "SESSION", description = "the order's Checkout session id")
    String sessionId;

    @Override
    void validate() {
      Validate.sessionId(sessionId);
    }

    @Override
    int run(OrderStore store, Output output) {
      Optional<OrderRecord> found = store.get(sessionId);
      if (found.isEmpty()) {
        throw new Problem(
            ExitCode.FOUND,
            "no order '" + sessionId + "' in " + store + "; check the session id (cs_...)");
      }
      OrderRecord order = found.get();
      List<OrphanRecord> orphans = orphans(store, order.sessionId());
      if (output.json()) {
        Map<String, Object> json = Views.order(order);
        json.put("orphans", orphans.stream().map(Views::orphan).toList());
        output.printJson(json);
        return ExitCode.OK;
      }
      Instant now = Instant.now();
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put("order", order.sessionId());
      fields.put("status", order.status().name());
      fields.put("product", order.snapshot().productId() + " x " + order.snapshot().quantity());
      fields.put("amount", order.snapshot().amountTotal() + " " + order.snapshot().currency());
      fields.put("customer", order.snapshot().customerEmail());
      fields.put("fence", Long.toString(order.fence()));
      fields.put(
          "claim",
          order.claimId() == null
              ? null
              : order.claimId()
                  + " since "
                  + order.claimedAt()
                  + ", lease "
                  + (order.leaseExpiresAt().isAfter(now) ? "ends " : "ended ")
                  + Views.ago(order.leaseExpiresAt(), now));
      fields.put("settled by", Views.text(order.settledBy()));
      fields.put(
          "item",
          order.item() == null
              ? null
              : order.item().providerOrderId()
                  + (order.item().payload() == null
                      ? ""
                      : " (payload " + order.item().payload() + ")"));
      fields.put("last error", order.lastError());
      fields.put(
          "failures",
          order.failures() == 0 ? "0" : order.failures() + " since " + order.failedSince());
      fields.put("updated at", Views.withAge(order.updatedAt(), now));
      long open = orphans.stream().filter(o -> !o.reconciled()).count();
      fields.put(
          "orphans", orphans.size() + (orphans.isEmpty() ? "" : " (" + open + " not reconciled)"));
      output.fields(fields);
      if (!orphans.isEmpty()) {
        output.line("");
        output.table(Views.ORPHAN_COLUMNS, orphans.stream().map(Views::orphanRow).toList());
      }
      return ExitCode.OK;
    }
  }

  /**
   * The orphans of an order with whether each is reconciled, when the store can say; as
   * unreconciled otherwise.
   */
  static List<OrphanRecord> orphans(OrderStore store, String sessionId) {
    return store.orphans(sessionId).stream()
        .map(
            orphan ->
                store instanceof OrderStoreAdmin admin
                    ? admin.orphan(OrphanId.of(orphan)).orElse(OrphanRecord.unreconciled(orphan))
                    : OrphanRecord.unreconciled(orphan))
        .toList();
  }

  /** {@code orders stuck --older-than AGE}. */
  @Command(
      name = "stuck",
      mixinStandardHelpOptions = true,
      description = {
        "Lists orders whose claim's lease ran out at least AGE ago with no settle and no new claim:"
            + " a crashed attempt no retry came back for. Oldest lease first.",
        "Exits 1 when it lists any."
      })
  static final class Stuck extends StoreCommand {

    @Option(
        names = "--older-than",
        paramLabel = "AGE",
        defaultValue = "0s",
        converter = Durations.class,
        description = "how long ago the lease ran out at least: 90s, 10m, 2h, 3d (default: 0s)")
    Duration olderThan;

    @Mixin PageOptions paging;

    @Override
    int run(OrderStore store, Output output) {
      return paging.list(
          output,
          cursor -> admin(store).stuckOrders(olderThan, cursor, paging.pageSize),
          List.of("SESSION", "STATUS", "FENCE", "CLAIM", "LEASE ENDED", "FAILURES", "LAST ERROR"),
          order ->
              List.of(
                  order.sessionId(),
                  order.status().name(),
                  Long.toString(order.fence()),
                  Views.text(order.claimId()),
                  Views.withAge(order.leaseExpiresAt(), Instant.now()),
                  Integer.toString(order.failures()),
                  order.lastError() == null ? "-" : order.lastError()),
          Views::order,
          "stuck order");
    }
  }

  /** {@code orders failed [--min-failures N] [--older-than AGE]}. */
  @Command(
      name = "failed",
      mixinStandardHelpOptions = true,
      description = {
        "Lists FAILED orders: all of them, or those that failed at least N times or have been"
            + " failing for at least AGE (either). Longest failing first.",
        "Exits 1 when it lists any."
      })
  static final class Failed extends StoreCommand {

    @Option(names = "--min-failures", paramLabel = "N", description = "failed at least N times")
    Integer minFailures;

    @Option(
        names = "--older-than",
        paramLabel = "AGE",
        converter = Durations.class,
        description = "failing for at least AGE: 90s, 10m, 2h, 3d")
    Duration olderThan;

    @Mixin PageOptions paging;

    @Override
    void validate() {
      if (minFailures != null && minFailures < 1) {
        throw new IllegalArgumentException("--min-failures must be at least 1, got " + minFailures);
      }
    }

    @Override
    int run(OrderStore store, Output output) {
      // an option not given matches nothing; neither given: every FAILED order (1 failure or more)
      int count = minFailures != null ? minFailures : olderThan == null ? 1 : Integer.MAX_VALUE;
      Duration age = olderThan == null ? OrderStoreAdmin.MAX_AGE : olderThan;
      return paging.list(
          output,
          cursor -> admin(store).failedOrders(count, age, cursor, paging.pageSize),
          List.of("SESSION", "FAILURES", "FAILING SINCE", "FENCE", "LAST ERROR"),
          order ->
              List.of(
                  order.sessionId(),
                  Integer.toString(order.failures()),
                  Views.withAge(order.failedSince(), Instant.now()),
                  Long.toString(order.fence()),
                  order.lastError() == null ? "-" : order.lastError()),
          Views::order,
          "failed order");
    }
  }

  /** {@code orders mismatches}. */
  @Command(
      name = "mismatches",
      mixinStandardHelpOptions = true,
      description = {
        "Lists the claims that offered a different order (product, quantity, amount or currency)"
            + " under a stored order's session id: each bought nothing and changed nothing, and"
            + " its delivery was answered 422, so Stripe retries it. Find out which order the"
            + " session id names (a release that changed how metadata maps to a product, two shops"
            + " or a test and a live mode sharing one store, orders keyed by a cart or a"
            + " customer), then fix the cause; the stored order is untouched. One row per refused"
            + " claim, oldest first.",
        "Exits 1 when it lists any."
      })
  static final class Mismatches extends StoreCommand {

    @Mixin PageOptions paging;

    @Override
    int run(OrderStore store, Output output) {
      return paging.list(
          output,
          cursor -> admin(store).mismatches(cursor, paging.pageSize),
          List.of("SESSION", "RECORDED AT", "FIELDS", "STORED", "OFFERED"),
          mismatch ->
              List.of(
                  mismatch.sessionId(),
                  Views.withAge(mismatch.recordedAt(), Instant.now()),
                  OrderField.names(mismatch.fields()),
                  Views.cart(mismatch.stored()),
                  Views.cart(mismatch.offered())),
          Views::mismatch,
          "mismatch");
    }
  }
}
