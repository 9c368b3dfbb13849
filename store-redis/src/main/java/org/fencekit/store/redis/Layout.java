package org.fencekit.store.redis;

import java.util.List;
import java.util.function.Predicate;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;

/**
 * The version of the store's key layout, at {@code <prefix>layout}, checked before the store's
 * first call. Layout 1 is fencekit's first release (an order's hash, its orphan stream and identity
 * set; no version key). Layout 2 adds the indexes of the operator's listings, an order's failure
 * count and first failure, and the orphans' reconciliations ({@link RedisAdminQueries}). Layout 3
 * keeps the same keys and indexes, and lets an order's status say whether it is claimed: a claim's
 * fence and nonce stay in the order when it settles, where layouts 1 and 2 moved them to other
 * fields, and the snapshot is one field instead of six ({@link HashCodec}); a new order writes 7
 * fields instead of 15, a complete 3 or 4 instead of 6 and a delete of 4.
 *
 * <p>No version key: if no order is stored under the prefix, the store is new and writes "3". If
 * the first order found is of layout 3 (it has a field {@code nonce}), the key was lost (a restart
 * without persistence, a FLUSHALL, an eviction) while a store kept writing, and it is written
 * again. Else the orders are of an older layout, as with a version key of "1" or "2": the store
 * refuses to start naming the remedy, or, when built with {@code upgradeLayout(true)}, brings every
 * order into layout 3 with its index entries ({@code reindex.lua}, one run per order, safe to run
 * again and from several processes at once) and then writes "3". A newer version is refused. Stop
 * every fencekit of an older layout before an upgrade: one still running reads a layout 3 order as
 * one with no claim, so it would answer its own complete as superseded.
 */
final class Layout {

  /** The layout this store reads and writes. */
  static final int VERSION = 3;

  private static final String CURRENT = Integer.toString(VERSION);
  private static final LuaScript REINDEX = LuaScript.load("reindex");

  private final ScriptRunner redis;
  private final OrderKeys keys;
  private final boolean upgrade;
  private volatile boolean checked;

  Layout(ScriptRunner redis, OrderKeys keys, boolean upgrade) {
    this.redis = redis;
    this.keys = keys;
    this.upgrade = upgrade;
  }

  /**
   * Checks the layout until it succeeds once (then a volatile read): a call before that pays one
   * GET, or a SCAN of the keyspace for a store with no version key yet.
   *
   * @param operation the store call that asks, for a failure's message
   * @param sessionId its order, or {@code null}
   * @throws IllegalStateException if the layout is older (and no upgrade was allowed) or newer
   * @throws org.fencekit.store.StoreUnavailableException if Redis fails; nothing was written by the
   *     call that asked, and the next call checks again
   */
  void check(String operation, String sessionId) {
    if (checked) {
      return;
    }
    // No lock around the GET: while Redis does not answer, callers wait out their own timeouts
    // side by side instead of one after another. Only the rare path without the current version
    // (a SCAN, maybe an upgrade) is taken by one caller at a time.
    String found = version(operation, sessionId);
    if (!CURRENT.equals(found)) {
      synchronized (this) {
        found = settle(operation, sessionId);
      }
    }
    if (!CURRENT.equals(found)) {
      throw refused(found);
    }
    checked = true;
  }

  /**
   * The layout once the version key is written where this store may write it: for a new store, for
   * one of this layout whose key was lost, and after an upgrade of an older one if allowed.
   */
  private String settle(String operation, String sessionId) {
    String found = version(operation, sessionId);
    if (found == null) {
      // the key of the first order hash stored under the prefix, or null
      String first = redis.call(operation, sessionId, false, c -> scanOrders(c, sid -> true));
      if (first == null
          || redis.call(operation, sessionId, false, c -> c.hexists(first, "nonce"))) {
        redis.call(operation, sessionId, false, c -> c.setnx(keys.layout(), CURRENT));
        String now = version(operation, sessionId);
        return now == null ? "(deleted while starting)" : now;
      }
      found =
          "2".equals(redis.call(operation, sessionId, false, c -> c.hget(first, "layout")))
              ? "2"
              : "1";
    }
    if (!found.equals("1") && !found.equals("2")) {
      return found;
    }
    if (!upgrade) {
      throw new IllegalStateException(
          String.format(
              "redis store: the orders under key prefix '%s' (Redis at %s) are in key layout %s,"
                  + " and this fencekit needs layout %s. Stop every fencekit of the older layout"
                  + " (one still running would read an order of layout %s as unclaimed), then"
                  + " upgrade the orders once: java -jar fencekit-admin.jar schema migrate --store"
                  + " <this store>, or build the store with"
                  + " RedisOrderStore.builder().upgradeLayout(true). It rewrites and indexes every"
                  + " order once and is safe to run again.",
              keys.prefix(), redis.target(), found, VERSION, VERSION));
    }
    reindexAll(operation, sessionId);
    redis.call(operation, sessionId, false, c -> c.set(keys.layout(), CURRENT));
    return CURRENT;
  }

  /** The version key's value, or null. */
  private String version(String operation, String sessionId) {
    return redis.call(operation, sessionId, false, c -> c.get(keys.layout()));
  }

  /** Indexes every order hash under the prefix. */
  private void reindexAll(String operation, String sessionId) {
    redis.call(
        operation,
        sessionId,
        true,
        c ->
            scanOrders(
                c,
                sid -> {
                  REINDEX.run(
                      c,
                      List.of(
                          keys.order(sid),
                          keys.orphans(sid),
                          keys.reconciled(sid),
                          keys.index(OrderKeys.CLAIMS, sid),
                          keys.index(OrderKeys.FAILED, sid),
                          keys.index(OrderKeys.ORPHANS, sid)),
                      List.of(OrderKeys.tag(sid)));
                  return false;
                }));
  }

  /**
   * Scans the order hashes under the prefix, calling {@code stop} with each one's session id until
   * it answers true; the key of the order it stopped at, or null.
   */
  private String scanOrders(UnifiedJedis c, Predicate<String> stop) {
    ScanIteration scan = c.scanIteration(1000, keys.prefix() + "{*", "hash");
    while (!scan.isIterationCompleted()) {
      for (String key : scan.nextBatch().getResult()) {
        String sid = keys.sessionIdOfOrderKey(key);
        if (sid != null && stop.test(sid)) {
          return key;
        }
      }
    }
    return null;
  }

  private IllegalStateException refused(String found) {
    boolean newer;
    try {
      newer = Integer.parseInt(found) > VERSION;
    } catch (NumberFormatException e) {
      return new IllegalStateException(
          String.format(
              "redis store: key %s (Redis at %s) holds '%s', not a layout version; is another"
                  + " application writing under key prefix '%s'? Give this store a prefix of its"
                  + " own (RedisOrderStore.builder().keyPrefix(...)).",
              keys.layout(), redis.target(), found, keys.prefix()));
    }
    String why =
        newer
            ? ", newer than the layout %s this fencekit knows: upgrade fencekit to the version that"
                + " wrote them (or a later one); an older one must not write there."
            : ", which this fencekit cannot read: it reads and writes layout %s.";
    return new IllegalStateException(
        String.format(
            "redis store: the keys under prefix '%s' (Redis at %s) are in key layout %s" + why,
            keys.prefix(),
            redis.target(),
            found,
            VERSION));
  }
}
