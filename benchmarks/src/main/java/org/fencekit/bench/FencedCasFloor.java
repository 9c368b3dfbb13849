package org.fencekit.bench;

import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import redis.clients.jedis.UnifiedJedis;

/**
 * The floor of the Redis store's script time: a minimal, correct fenced compare-and-set on one hash
 * per order ({@code floor-claim.lua}, {@code floor-complete.lua} in this module's resources). A
 * claim reads 4 fields and writes 4, raising the fence; a complete reads 4 and writes 4 if the
 * token is the current one, else adds the purchase to the order's orphan set. No snapshot, no
 * listings, no record in the reply: what any fenced store must at least do, and what {@link
 * ScriptTime} compares the store's scripts with.
 *
 * <p>The <em>indexed</em> floor ({@link #indexed}) also keeps what an exact stuck-order listing
 * needs, and the store keeps: a sorted set of the held claims by lease end, which a claim adds its
 * order to ({@code ZADD}) and a complete that settles it takes it out of ({@code ZREM}); {@link
 * #heldUntil} walks it. One set for the keyspace: a node's floor, not a Cluster's.
 */
final class FencedCasFloor {

  private static final String LUA = "/org/fencekit/bench/";

  private final UnifiedJedis client;
  private final String keyPrefix;
  private final String held;
  private final String claimSha;
  private final String completeSha;

  /** The floor on {@code client}, its keys under {@code keyPrefix}; loads both scripts there. */
  FencedCasFloor(UnifiedJedis client, String keyPrefix) {
    this(client, keyPrefix, null);
  }

  private FencedCasFloor(UnifiedJedis client, String keyPrefix, String held) {
    this.client = client;
    this.keyPrefix = keyPrefix;
    this.held = held;
    this.claimSha = client.scriptLoad(RawRedis.resource(LUA + "floor-claim.lua"));
    this.completeSha = client.scriptLoad(RawRedis.resource(LUA + "floor-complete.lua"));
  }

  /** The indexed floor on {@code client}: the floor and its held claims by lease end. */
  static FencedCasFloor indexed(UnifiedJedis client, String keyPrefix) {
    return new FencedCasFloor(client, keyPrefix, keyPrefix + "held");
  }

  /** A claim: the outcome, and the new token if {@code claimed}. */
  record Claim(String outcome, ClaimId token) {}

  /** Claims {@code sessionId}'s order at {@code now} for {@code leaseMillis}. */
  Claim claim(String sessionId, long now, long leaseMillis) {
    String nonce = ClaimId.newNonce();
    List<?> reply =
        (List<?>)
            client.evalsha(
                claimSha,
                held == null ? List.of(order(sessionId)) : List.of(order(sessionId), held),
                List.of(Long.toString(now), Long.toString(now + leaseMillis), nonce));
    String outcome = RawRedis.text(reply.get(0));
    return new Claim(
        outcome,
        "claimed".equals(outcome)
            ? new ClaimId(Long.parseLong(RawRedis.text(reply.get(1))), nonce)
            : null);
  }

  /**
   * Completes {@code sessionId}'s order with {@code token}: {@code written} or {@code superseded}.
   */
  String complete(String sessionId, ClaimId token, String itemId, String payload, long now) {
    String order = order(sessionId);
    List<?> reply =
        (List<?>)
            client.evalsha(
                completeSha,
                held == null
                    ? List.of(order, order + ":orphans")
                    : List.of(order, order + ":orphans", held),
                List.of(
                    Long.toString(token.fence()),
                    token.nonce(),
                    itemId,
                    payload,
                    Long.toString(now)));
    return RawRedis.text(reply.get(0));
  }

  /**
   * Claims and completes the fresh order {@code sessionId}: the floor's side of {@link ScriptTime}
   * and {@link RedisCost}.
   *
   * @throws IllegalStateException if the claim or the complete was refused
   */
  void claimComplete(String sessionId) {
    long now = System.currentTimeMillis();
    Claim claim = claim(sessionId, now, ClaimCompleteBenchmark.LEASE.toMillis());
    if (claim.token() == null) {
      throw new IllegalStateException("fresh order " + sessionId + ": " + claim.outcome());
    }
    String written =
        complete(
            sessionId, claim.token(), Orders.ITEM.providerOrderId(), Orders.ITEM.payload(), now);
    if (!"written".equals(written)) {
      throw new IllegalStateException("the owner's complete of " + sessionId + ": " + written);
    }
  }

  /**
   * The orders of the held claims whose lease ended at or before {@code now}, by lease end: the
   * stuck-order listing the indexed floor's set is for (the plain floor has none: empty).
   */
  List<String> heldUntil(long now) {
    if (held == null) {
      return List.of();
    }
    return client.zrangeByScore(held, Double.NEGATIVE_INFINITY, now).stream()
        .map(key -> key.substring(keyPrefix.length() + 1, key.length() - 1))
        .toList();
  }

  /** The members of the order's orphan set. */
  Set<String> orphans(String sessionId) {
    return client.smembers(order(sessionId) + ":orphans");
  }

  private String order(String sessionId) {
    return keyPrefix + "{" + sessionId + "}";
  }
}
