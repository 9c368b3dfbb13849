package org.fencekit.tck;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimRequest;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.Validate;
import org.fencekit.store.WriteRequest;
import org.fencekit.store.WriteResult;

/**
 * A small in-memory store, written from the contract independently of OrderStateMachine, that can
 * be broken on purpose, one {@link Break} at a time, to prove the TCK catches each break. With no
 * break it is a correct store (one lock over everything) and must pass the whole TCK. Several
 * instances built over one {@link Data} share their orders, like two pools over one database, so
 * the cross-instance tests run too.
 */
final class BrokenStore implements OrderStore {

  /** The ways to break the contract. */
  enum Break {
    /** fail writes whatever token it is given. */
    NO_FENCE_ON_FAIL,
    /** complete writes whatever token it is given. */
    NO_FENCE_ON_COMPLETE,
    /**
     * complete and fail accept a token while its own lease is live, by time, instead of comparing
     * tokens.
     */
    FENCE_BY_LEASE_TIME,
    /** a PROVISIONED order is claimed again like a FAILED one. */
    PROVISIONED_CLAIMABLE,
    /** complete and fail leave the claim in place, so the token stays current. */
    SETTLE_KEEPS_CLAIM,
    /** a superseded complete records no orphan. */
    NO_ORPHAN,
    /** a re-claim keeps the old fence (a new nonce still tells the tokens apart). */
    FENCE_NOT_INCREASING,
    /** a lease is still live at exactly leaseExpiresAt. */
    LEASE_END_EXCLUSIVE,
    /** every retry of a superseded complete appends another orphan. */
    ORPHAN_PER_RETRY,
    /** a replayed settle answers Superseded. */
    REPLAY_SUPERSEDED,
    /** a superseded write bumps updatedAt. */
    SUPERSEDED_TOUCHES_UPDATED_AT,
    /** a granted re-claim stores the new snapshot. */
    SNAPSHOT_OVERWRITTEN,
    /** a re-claim clears lastError. */
    LAST_ERROR_CLEARED,
    /** writes compare the fence only, not the nonce. */
    NONCE_IGNORED,
    /** the nonce is derived from the session id, so every claim of an order has the same one. */
    NONCE_FROM_SESSION_ID,
    /** time is the clock's full reading, not whole milliseconds. */
    NO_MILLIS_TRUNCATION,
    /** claim does not validate the lease. */
    LEASE_UNCHECKED,
    /** a Written answer carries the record as it was before the write. */
    WRITTEN_ANSWERS_OLD_RECORD,
    /**
     * claim reads the order, then writes without holding the lock in between: a window that stays
     * open until a second caller has read the same order (at most {@link #WINDOW_MILLIS} ms).
     */
    RACY_CLAIM,
    /** complete and fail read the order, then write, with {@link #RACY_CLAIM}'s window. */
    RACY_SETTLE,
    /** writes compare the nonce only, not the fence. */
    FENCE_IGNORED,
    /** a write lands with any token whose fence is newer than the current claim's. */
    NEWER_FENCE_ACCEPTED,
    /** whether a lease is live is judged on the system clock, not the store's. */
    LEASE_LIVE_BY_SYSTEM_CLOCK
  }

  /**
   * How long a racy break's window waits for a second caller: long enough for a rule that really
   * calls concurrently to meet it every time, short enough that a rule that does not stays fast.
   */
  static final long WINDOW_MILLIS = 25;

  /** The shared data of instances over "one database". */
  static final class Data {
    private final Object lock = new Object();
    private final Map<String, OrderRecord> orders = new HashMap<>();
    private final Map<String, List<Orphan>> orphans = new HashMap<>();

    /** Each token's own lease end, for {@link Break#FENCE_BY_LEASE_TIME}. */
    private final Map<ClaimId, Instant> leases = new HashMap<>();

    /** Per order, the first two racy callers meet here between their read and their write. */
    private final Map<String, CountDownLatch> windows = new ConcurrentHashMap<>();
  }

  private final Data data;
  private final Clock clock;
  private final Break broken;

  /**
   * @param data the orders, possibly shared with another instance
   * @param clock the time
   * @param broken the break, or null for a correct store
   */
  BrokenStore(Data data, Clock clock, Break broken) {
    this.data = data;
    this.clock = clock;
    this.broken = broken;
  }

  private boolean has(Break which) {
    return broken == which;
  }

  private Instant now() {
    Instant now = clock.instant();
    return has(Break.NO_MILLIS_TRUNCATION) ? now : now.truncatedTo(ChronoUnit.MILLIS);
  }

  /**
   * The racy breaks' window between read and write: the first two callers on an order wait here for
   * each other, so both have read before either writes; later callers pass straight through.
   */
  private void window(String sessionId) {
    CountDownLatch meeting = data.windows.computeIfAbsent(sessionId, k -> new CountDownLatch(2));
    meeting.countDown();
    try {
      meeting.await(WINDOW_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    if (has(Break.LEASE_UNCHECKED)) {
      Objects.requireNonNull(snapshot, "snapshot");
    } else {
      new ClaimRequest(snapshot, lease);
    }
    String sid = snapshot.sessionId();
    if (has(Break.RACY_CLAIM)) {
      OrderRecord seen;
      synchronized (data.lock) {
        seen = data.orders.get(sid);
      }
      window(sid);
      synchronized (data.lock) {
        return decideClaim(seen, snapshot, lease);
      }
    }
    synchronized (data.lock) {
      return decideClaim(data.orders.get(sid), snapshot, lease);
    }
  }

  private ClaimResult decideClaim(OrderRecord current, OrderSnapshot snapshot, Duration lease) {
    Instant now = now();
    Instant expires = now.plusMillis(lease.toMillis());
    String sid = snapshot.sessionId();
    String nonce =
        has(Break.NONCE_FROM_SESSION_ID)
            ? HexFormat.of()
                .formatHex(sid.getBytes(StandardCharsets.UTF_8))
                .concat("0".repeat(32))
                .substring(0, 32)
            : ClaimId.newNonce();
    if (current == null) {
      ClaimId token = new ClaimId(1, nonce);
      OrderRecord created =
          new OrderRecord(
              snapshot, OrderStatus.PENDING, null, null, token, now, expires, 1, null, now);
      data.orders.put(sid, created);
      data.leases.put(token, expires);
      return new ClaimResult.Claimed(token, created);
    }
    if (current.status() == OrderStatus.PROVISIONED && !has(Break.PROVISIONED_CLAIMABLE)) {
      return new ClaimResult.Provisioned(current);
    }
    if (current.claimId() != null) {
      Instant judged = has(Break.LEASE_LIVE_BY_SYSTEM_CLOCK) ? Instant.now() : now;
      boolean live =
          has(Break.LEASE_END_EXCLUSIVE)
              ? !judged.isAfter(current.leaseExpiresAt())
              : judged.isBefore(current.leaseExpiresAt());
      if (live) {
        return new ClaimResult.InFlight(current);
      }
    }
    long fence = has(Break.FENCE_NOT_INCREASING) ? current.fence() : current.fence() + 1;
    ClaimId token = new ClaimId(fence, nonce);
    OrderRecord claimed =
        new OrderRecord(
            has(Break.SNAPSHOT_OVERWRITTEN) ? snapshot : current.snapshot(),
            OrderStatus.PENDING,
            null,
            has(Break.LAST_ERROR_CLEARED) ? null : current.lastError(),
            token,
            now,
            expires,
            fence,
            current.settledBy(),
            now);
    data.orders.put(sid, claimed);
    data.leases.put(token, expires);
    return new ClaimResult.Claimed(token, claimed);
  }

  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    return write(new WriteRequest.Complete(sessionId, claimId, item));
  }

  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    return write(new WriteRequest.Fail(sessionId, claimId, error));
  }

  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return write(new WriteRequest.Extend(sessionId, claimId, lease));
  }

  private WriteResult write(WriteRequest request) {
    boolean settle = !(request instanceof WriteRequest.Extend);
    if (has(Break.RACY_SETTLE) && settle) {
      OrderRecord seen;
      synchronized (data.lock) {
        seen = data.orders.get(request.sessionId());
      }
      window(request.sessionId());
      synchronized (data.lock) {
        return decideWrite(seen, request);
      }
    }
    synchronized (data.lock) {
      return decideWrite(data.orders.get(request.sessionId()), request);
    }
  }

  private WriteResult decideWrite(OrderRecord current, WriteRequest request) {
    String sid = request.sessionId();
    if (current == null) {
      throw new UnknownOrderException("broken", request.operation(), sid);
    }
    Instant now = now();
    ClaimId token = request.claimId();
    boolean replay =
        token.equals(current.settledBy())
            && ((request instanceof WriteRequest.Complete
                    && current.status() == OrderStatus.PROVISIONED
                    && ((WriteRequest.Complete) request).item().equals(current.item()))
                || (request instanceof WriteRequest.Fail
                    && current.status() == OrderStatus.FAILED
                    && ((WriteRequest.Fail) request).error().equals(current.lastError())));
    if (replay) {
      return has(Break.REPLAY_SUPERSEDED)
          ? new WriteResult.Superseded(current)
          : new WriteResult.Written(current);
    }
    if (!accepts(current, request, now)) {
      if (request instanceof WriteRequest.Complete && !has(Break.NO_ORPHAN)) {
        Item item = ((WriteRequest.Complete) request).item();
        List<Orphan> list = data.orphans.computeIfAbsent(sid, k -> new ArrayList<>());
        boolean known =
            list.stream()
                .anyMatch(
                    o ->
                        o.claimId().equals(token)
                            && o.item().providerOrderId().equals(item.providerOrderId()));
        if (!known || has(Break.ORPHAN_PER_RETRY)) {
          list.add(new Orphan(sid, token, item, now));
        }
      }
      if (has(Break.SUPERSEDED_TOUCHES_UPDATED_AT)) {
        OrderRecord touched =
            new OrderRecord(
                current.snapshot(),
                current.status(),
                current.item(),
                current.lastError(),
                current.claimId(),
                current.claimedAt(),
                current.leaseExpiresAt(),
                current.fence(),
                current.settledBy(),
                now);
        data.orders.put(sid, touched);
        return new WriteResult.Superseded(touched);
      }
      return new WriteResult.Superseded(current);
    }
    boolean keepClaim = has(Break.SETTLE_KEEPS_CLAIM);
    OrderRecord next;
    if (request instanceof WriteRequest.Complete) {
      next =
          new OrderRecord(
              current.snapshot(),
              OrderStatus.PROVISIONED,
              ((WriteRequest.Complete) request).item(),
              current.lastError(),
              keepClaim ? current.claimId() : null,
              keepClaim ? current.claimedAt() : null,
              keepClaim ? current.leaseExpiresAt() : null,
              current.fence(),
              token,
              now);
    } else if (request instanceof WriteRequest.Fail) {
      next =
          new OrderRecord(
              current.snapshot(),
              OrderStatus.FAILED,
              null,
              ((WriteRequest.Fail) request).error(),
              keepClaim ? current.claimId() : null,
              keepClaim ? current.claimedAt() : null,
              keepClaim ? current.leaseExpiresAt() : null,
              current.fence(),
              token,
              now);
    } else {
      Instant expires = now.plusMillis(((WriteRequest.Extend) request).lease().toMillis());
      next =
          new OrderRecord(
              current.snapshot(),
              current.status(),
              current.item(),
              current.lastError(),
              current.claimId(),
              current.claimedAt(),
              expires,
              current.fence(),
              current.settledBy(),
              now);
      data.leases.put(token, expires);
    }
    data.orders.put(sid, next);
    return new WriteResult.Written(has(Break.WRITTEN_ANSWERS_OLD_RECORD) ? current : next);
  }

  /** Whether the write may land: the fence, or its deliberate break. */
  private boolean accepts(OrderRecord current, WriteRequest request, Instant now) {
    ClaimId token = request.claimId();
    boolean complete = request instanceof WriteRequest.Complete;
    boolean fail = request instanceof WriteRequest.Fail;
    if ((complete && has(Break.NO_FENCE_ON_COMPLETE)) || (fail && has(Break.NO_FENCE_ON_FAIL))) {
      return true;
    }
    if ((complete || fail) && has(Break.FENCE_BY_LEASE_TIME)) {
      Instant expires = data.leases.get(token);
      return expires != null && now.isBefore(expires) && current.claimId() != null;
    }
    if (current.claimId() == null) {
      return false;
    }
    if (has(Break.NONCE_IGNORED)) {
      return current.claimId().fence() == token.fence();
    }
    if (has(Break.FENCE_IGNORED)) {
      return current.claimId().nonce().equals(token.nonce());
    }
    if (has(Break.NEWER_FENCE_ACCEPTED) && token.fence() > current.claimId().fence()) {
      return true;
    }
    return current.claimId().equals(token);
  }

  @Override
  public Optional<OrderRecord> get(String sessionId) {
    Validate.sessionId(sessionId);
    synchronized (data.lock) {
      return Optional.ofNullable(data.orders.get(sessionId));
    }
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    Validate.sessionId(sessionId);
    synchronized (data.lock) {
      return List.copyOf(data.orphans.getOrDefault(sessionId, List.of()));
    }
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "BrokenStore[" + (broken == null ? "correct" : broken) + "]";
  }
}
