package org.fencekit.store.redis;

import static org.fencekit.store.redis.HashCodec.text;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.spi.AdminQueries;
import org.fencekit.store.spi.FencedAdmin;

/**
 * The operator's queries on Redis ({@link AdminQueries}; {@link FencedAdmin} validates, pages and
 * decides). Three sorted sets per node (per slot on a Cluster) are the indexes, kept by the same
 * script as the write that changes them: held claims by their lease's end ({@code claim.lua},
 * {@code extend.lua}, {@code complete.lua}, {@code fail.lua}), FAILED orders by their first failure
 * ({@code fail.lua}, {@code claim.lua}), unreconciled orphans by the instant each was recorded
 * ({@code complete.lua}, {@code reconcile.lua}) and mismatched claims by theirs ({@code claim.lua},
 * never removed). All members have score 0 and sort by their bytes: the instant ({@link #at}), then
 * the order's tag and, for an orphan, its token and provider id, so a page is a lexicographic range
 * strictly after the last member of the page before.
 *
 * <p>A listing runs {@code page.lua} once on a node; on a Cluster once per {@value #SLOTS_PER_RUN}
 * slots of each master, over the index keys of those slots (the slot map from {@code CLUSTER
 * SLOTS}), and merges the runs' pages here: its cost is the page, plus one look at each slot's key
 * (16 runs of a few milliseconds for a whole Cluster). A slot that moves while a page is read fails
 * that page (run it again). Orphan lookups and reconciles run one script on the order's slot.
 *
 * @param lookBudget members {@code page.lua} looks at per run before it answers where to go on
 *     ({@link #LOOK_BUDGET}; tests make it small to take that path)
 */
record RedisAdminQueries(ScriptRunner redis, OrderKeys keys, Layout layout, int lookBudget)
    implements AdminQueries {

  private static final String SEP = "\u001f";
  private static final long TWO_53 = 1L << 53;

  /**
   * Slots one run of {@code page.lua} reads on a Cluster: a run looks at each slot's index key
   * (about 3 microseconds each, a key that does not exist included), and Redis serves nothing else
   * meanwhile, so a master's slots are read in runs of this many, a few milliseconds each.
   */
  static final int SLOTS_PER_RUN = 1024;

  /** Members {@code page.lua} looks at in one run, at most, before it answers where to go on. */
  static final int LOOK_BUDGET = 20_000;

  private static final LuaScript PAGE = LuaScript.load("page");
  private static final LuaScript SLOTS = LuaScript.load("slots");
  private static final LuaScript ORPHAN = LuaScript.load("orphan");
  private static final LuaScript RECONCILE = LuaScript.load("reconcile");

  private static final Comparator<Found> BY_BYTES =
      (a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes());

  @Override
  public String backend() {
    return ScriptRunner.BACKEND;
  }

  @Override
  public List<OrphanRecord> unreconciledOrphans(OrphanPosition after, int limit) {
    layout.check("list orphans", null);
    String start = after == null ? "-" : "(" + orphanMember(after);
    List<OrphanRecord> out = new ArrayList<>();
    for (Found found : list(OrderKeys.ORPHANS, start, "+", limit, "", "")) {
      String[] parts = found.member().split(SEP, 5);
      String sessionId = OrderKeys.sessionIdOf(parts[1]);
      List<?> detail = (List<?>) found.detail();
      Map<String, String> fields = new HashMap<>();
      fields.put("claim", Long.parseLong(parts[2]) + ":" + parts[3]);
      fields.put("providerOrderId", parts[4]);
      fields.put("recordedAt", Long.toString(millisOf(parts[0])));
      if ("1".equals(text(detail.get(0)))) {
        fields.put("payload", text(detail.get(1)));
      }
      out.add(
          OrphanRecord.unreconciled(HashCodec.orphan(keys.orphans(sessionId), sessionId, fields)));
    }
    return out;
  }

  @Override
  public Optional<OrphanRecord> orphan(OrphanId id) {
    String sid = id.sessionId();
    layout.check("orphan", sid);
    List<?> reply =
        run(
            ORPHAN,
            "orphan",
            sid,
            false,
            List.of(keys.orphans(sid), keys.reconciled(sid)),
            List.of(identity(id), id.claimId().toString(), id.providerOrderId()));
    return recordOf(ORPHAN, id, reply);
  }

  @Override
  public Optional<OrphanRecord> markReconciled(OrphanId id, String note, Instant reconciledAt) {
    String sid = id.sessionId();
    layout.check("reconcile", sid);
    List<String> keyList =
        List.of(
            keys.orphans(sid),
            keys.orphanIds(sid),
            keys.reconciled(sid),
            keys.index(OrderKeys.ORPHANS, sid));
    List<String> args =
        List.of(
            identity(id),
            id.claimId().toString(),
            id.providerOrderId(),
            reconciledAt.toEpochMilli() + ":" + note,
            OrderKeys.tag(sid));
    return recordOf(RECONCILE, id, run(RECONCILE, "reconcile", sid, true, keyList, args));
  }

  @Override
  public List<Mismatch> mismatches(MismatchPosition after, int limit) {
    layout.check("list mismatches", null);
    String start =
        after == null
            ? "-"
            : "("
                + String.join(
                    SEP,
                    at(after.recordedAt().toEpochMilli()),
                    OrderKeys.tag(after.id().sessionId()),
                    after.id().nonce());
    List<Mismatch> out = new ArrayList<>();
    for (Found found : list(OrderKeys.MISMATCHES, start, "+", limit, "", "")) {
      String[] parts = found.member().split(SEP, 3);
      String sessionId = OrderKeys.sessionIdOf(parts[1]);
      out.add(
          HashCodec.mismatch(
              keys.mismatches(sessionId),
              new MismatchId(sessionId, parts[2]),
              Instant.ofEpochMilli(millisOf(parts[0])),
              text(found.detail())));
    }
    return out;
  }

  @Override
  public List<OrderRecord> stuckOrders(Instant expiredBy, OrderPosition after, int limit) {
    layout.check("list stuck orders", null);
    String stop = "(" + at(expiredBy.toEpochMilli() + 1);
    return orders(list(OrderKeys.CLAIMS, start(after), stop, limit, "", ""));
  }

  @Override
  public List<OrderRecord> failedOrders(
      int minFailures, Instant failedBy, OrderPosition after, int limit) {
    layout.check("list failed orders", null);
    String start = start(after);
    String ageBound = at(failedBy.toEpochMilli() + 1);
    return orders(
        minFailures == Integer.MAX_VALUE
            ? list(OrderKeys.FAILED, start, "(" + ageBound, limit, "", ageBound)
            : list(OrderKeys.FAILED, start, "+", limit, Integer.toString(minFailures), ageBound));
  }

  /** A listing's first {@code limit} members after {@code start}, over every node, oldest first. */
  private List<Found> list(
      String listing, String start, String stop, int limit, String minFailures, String ageBound) {
    List<Found> all = new ArrayList<>();
    for (List<String> indexKeys : sources(listing)) {
      all.addAll(page(listing, indexKeys, start, stop, limit, minFailures, ageBound));
    }
    all.sort(BY_BYTES);
    return all.size() > limit ? all.subList(0, limit) : all;
  }

  /**
   * The first {@code limit} qualifying members on one node, in as many runs as its budget needs.
   */
  private List<Found> page(
      String listing,
      List<String> indexKeys,
      String start,
      String stop,
      int limit,
      String minFailures,
      String ageBound) {
    List<Found> found = new ArrayList<>();
    String from = start;
    while (found.size() < limit) {
      List<String> args = new ArrayList<>(8 + indexKeys.size());
      args.add(from);
      args.add(stop);
      args.add(Integer.toString(limit - found.size()));
      args.add(listing.equals(OrderKeys.CLAIMS) ? "stuck" : listing);
      args.add(keys.prefix());
      args.add(minFailures);
      args.add(ageBound);
      args.add(Integer.toString(lookBudget));
      args.addAll(indexKeys);
      List<?> reply = run(PAGE, "list " + listing, null, false, List.of(indexKeys.get(0)), args);
      for (int i = 1; i + 1 < reply.size(); i += 2) {
        String member = text(reply.get(i));
        found.add(new Found(member, member.getBytes(StandardCharsets.UTF_8), reply.get(i + 1)));
      }
      String resume = text(reply.get(0));
      if (resume == null || resume.isEmpty()) {
        break;
      }
      from = "(" + resume;
    }
    return found;
  }

  /**
   * The index keys of {@code listing}, grouped by the node that holds them: one key on a node; on a
   * Cluster, per master, the keys of the slots it holds, as CLUSTER SLOTS says now, in groups of at
   * most {@value #SLOTS_PER_RUN} (one script run each).
   */
  private List<List<String>> sources(String listing) {
    if (!keys.cluster()) {
      return List.of(List.of(keys.nodeIndex(listing)));
    }
    List<?> slots = run(SLOTS, "list " + listing, null, false, List.of(keys.layout()), List.of());
    Map<String, List<String>> byMaster = new LinkedHashMap<>();
    for (Object range : slots) {
      List<?> r = (List<?>) range;
      int first = ((Number) r.get(0)).intValue();
      int last = ((Number) r.get(1)).intValue();
      List<?> master = (List<?>) r.get(2);
      String node =
          master.size() > 2 ? text(master.get(2)) : text(master.get(0)) + ":" + master.get(1);
      List<String> indexKeys = byMaster.computeIfAbsent(node, n -> new ArrayList<>());
      for (int slot = first; slot <= last; slot++) {
        indexKeys.add(keys.slotIndex(listing, slot));
      }
    }
    int covered = byMaster.values().stream().mapToInt(List::size).sum();
    if (covered != SlotTags.SLOTS) {
      throw new StoreUnavailableException(
          ScriptRunner.BACKEND,
          "list " + listing,
          null,
          false,
          String.format(
              "the Cluster's slot map covers %s of %s slots (Redis at %s); check cluster_state"
                  + " with CLUSTER INFO and list again when it is ok",
              covered, SlotTags.SLOTS, redis.target()),
          null);
    }
    List<List<String>> runs = new ArrayList<>();
    for (List<String> indexKeys : byMaster.values()) {
      for (int from = 0; from < indexKeys.size(); from += SLOTS_PER_RUN) {
        runs.add(indexKeys.subList(from, Math.min(indexKeys.size(), from + SLOTS_PER_RUN)));
      }
    }
    return runs;
  }

  private List<OrderRecord> orders(List<Found> found) {
    List<OrderRecord> out = new ArrayList<>(found.size());
    for (Found f : found) {
      String tag = f.member().substring(f.member().indexOf(SEP) + 1);
      String sessionId = OrderKeys.sessionIdOf(tag);
      out.add(HashCodec.record(keys.order(sessionId), sessionId, f.detail()));
    }
    return out;
  }

  private Optional<OrphanRecord> recordOf(LuaScript script, OrphanId id, List<?> reply) {
    String outcome = reply.isEmpty() ? null : text(reply.get(0));
    if ("unknown".equals(outcome)) {
      return Optional.empty();
    }
    if (!"found".equals(outcome) || reply.size() < 3) {
      throw ScriptRunner.unexpected(script, String.valueOf(reply));
    }
    String sid = id.sessionId();
    Map<String, String> fields = HashCodec.fields((List<?>) reply.get(1));
    OrphanRecord unreconciled =
        OrphanRecord.unreconciled(HashCodec.orphan(keys.orphans(sid), sid, fields));
    String mark = text(reply.get(2));
    if (mark == null) {
      return Optional.of(unreconciled);
    }
    int colon = mark.indexOf(':');
    return Optional.of(
        new OrphanRecord(
            unreconciled.orphan(),
            mark.substring(colon + 1),
            Instant.ofEpochMilli(Long.parseLong(mark.substring(0, colon)))));
  }

  /** A script's reply, the client's failures as {@link ScriptRunner#call} turns them. */
  private List<?> run(
      LuaScript script,
      String operation,
      String sessionId,
      boolean writes,
      List<String> keyList,
      List<String> args) {
    return redis.call(operation, sessionId, writes, c -> (List<?>) script.run(c, keyList, args));
  }

  /** An orphan's identity as {@code complete.lua} records it: {@code <fence>:<nonce>:<id>}. */
  private static String identity(OrphanId id) {
    return id.claimId() + ":" + id.providerOrderId();
  }

  private static String orphanMember(OrphanPosition p) {
    ClaimId claim = p.id().claimId();
    return String.join(
        SEP,
        at(p.recordedAt().toEpochMilli()),
        OrderKeys.tag(p.id().sessionId()),
        String.format(Locale.ROOT, "%019d", claim.fence()),
        claim.nonce(),
        p.id().providerOrderId());
  }

  /** Where a listing of orders starts: after the order {@code after}, or at the first. */
  private static String start(OrderPosition after) {
    return after == null
        ? "-"
        : "(" + at(after.at().toEpochMilli()) + SEP + OrderKeys.tag(after.sessionId());
  }

  /**
   * An instant's place in an index, as the scripts write it: 16 digits of epoch ms, or '-' and 2^53
   * + ms before 1970, so that byte order is time order. ASCII digits whatever the JVM's locale (a
   * cursor is an index member, which the scripts write in ASCII).
   */
  static String at(long epochMillis) {
    return epochMillis >= 0
        ? String.format(Locale.ROOT, "%016d", epochMillis)
        : "-" + String.format(Locale.ROOT, "%016d", epochMillis + TWO_53);
  }

  /** The epoch ms {@link #at} wrote. */
  static long millisOf(String at) {
    return at.startsWith("-") ? Long.parseLong(at.substring(1)) - TWO_53 : Long.parseLong(at);
  }

  /** A member a listing found and what the script sent with it. */
  private record Found(String member, byte[] bytes, Object detail) {}
}
