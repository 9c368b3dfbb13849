package org.fencekit.tck;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.UnknownOrphanException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.Validate;
import org.fencekit.store.spi.WriteRequest;

/**
 * A small in-memory store, written from the contract independently of OrderStateMachine, that can
 * be broken on purpose, one {@link Break} at a time, to prove the TCK catches each break. It is an
 * {@link OrderStoreAdmin} too, with listings that sort everything under the lock (a test store need
 * not scale). With no break it is a correct store (one lock over everything) and must pass the
 * whole TCK. Several instances built over one {@link Data} share their orders, like two pools over
 * one database, so the cross-instance tests run too.
 */
final class BrokenStore implements OrderStore, OrderStoreAdmin {

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
    LEASE_LIVE_BY_SYSTEM_CLOCK,
    /** the orphan listing's cursor holds only recordedAt, so orphans tied on it are skipped. */
    CURSOR_BY_TIME_ONLY,
    /** the orphan listing is a snapshot taken at its first page, so later orphans are missed. */
    SNAPSHOT_PAGING,
    /** the orphan listing's cursor is an offset, so a reconcile meanwhile shifts the next page. */
    OFFSET_PAGING,
    /**
     * reconcile reads the orphan, then writes its mark without holding the lock in between, with
     * {@link #RACY_CLAIM}'s window.
     */
    RACY_RECONCILE,
    /** a mark always overwrites the one recorded. */
    REMARK_OVERWRITES,
    /** reconciled orphans stay in the unreconciled listing. */
    RECONCILED_STILL_LISTED,
    /** the lookup matches the session id and the token only, not the provider order id. */
    LOOKUP_IGNORES_PROVIDER_ORDER,
    /** stuck orders are judged by claimedAt instead of leaseExpiresAt. */
    STUCK_BY_CLAIMED_AT,
    /** a re-claim resets the failure count and failedSince. */
    FAILURES_RESET_ON_CLAIM,
    /** the admin calls do not check the page size's upper bound. */
    ADMIN_INPUT_UNCHECKED,
    /**
     * the orphan listing sorts and pages by the orphan's identity (session id, token, provider
     * order id), as an index on the table's primary key would, instead of oldest first.
     */
    ORPHANS_BY_IDENTITY,
    /**
     * the orphan listing sorts and pages in the order the orphans were recorded (a serial id),
     * which is not oldest first when clocks differ or a write is slow.
     */
    ORPHANS_IN_RECORDING_ORDER,
    /** stuck orders are sorted and paged by session id, not by the lease's end. */
    STUCK_BY_SESSION_ID,
    /** failed orders are sorted and paged by session id, not by the first failure. */
    FAILED_BY_SESSION_ID,
    /**
     * failed orders are sorted and paged by their last write (updatedAt), not the first failure.
     */
    FAILED_BY_LAST_FAILURE,
    /**
     * the orphan listing's sort key and cursor leave the token out (recordedAt, session id,
     * provider order id), so of two tokens' orphans tied on the rest a page boundary skips the
     * second.
     */
    ORPHAN_KEY_WITHOUT_TOKEN,
    /**
     * the orphan listing sorts by the token's fence as a double and writes it in the cursor as one
     * (a JSON number), so fences above 2^53 collide and a page boundary among them skips or
     * repeats.
     */
    FENCE_AS_DOUBLE,
    /**
     * reconcile checks the orphan under the lock, lets go of it, yields the thread, and takes the
     * lock again to write its mark: a check-then-act with a narrow window and no wait in it.
     */
    RACY_RECONCILE_NARROW,
    /** the stuck and failed listings write one kind of cursor, so each takes the other's. */
    ORDER_CURSORS_SHARED,
    /**
     * the failed listing reads any cursor's first two fields as its position without checking which
     * listing wrote it.
     */
    FAILED_CURSOR_UNCHECKED,
    /**
     * tokens are compared with their fences cut to 32 bits (a JDBC getInt, an int column): in the
     * write's check, the replay's, the orphan's identity and the lookup.
     */
    FENCE_AS_INT,
    /** the stuck and failed listings' cursor is an offset, so an order leaving shifts the rest. */
    ORDER_OFFSET_PAGING,
    /**
     * the stuck and failed listings' cursor joins its fields with ':' and splits them all on ':',
     * so a session id holding one is cut.
     */
    CURSOR_SPLITS_ON_COLON,
    /**
     * orphans(sessionId) scans the orphans by key prefix (sessionId, then ':'), so an order whose
     * id extends another's with ':' lends it its orphans.
     */
    ORPHANS_BY_KEY_PREFIX,
    /** a note is refused at exactly its maximum length (a {@code >=} where {@code >} was meant). */
    NOTE_LIMIT_OFF_BY_ONE,
    /** extend keeps the later of the current end and now + lease. */
    EXTEND_KEEPS_LATER_END,
    /** reconcile stamps the store's clock instead of the instant it is given. */
    RECONCILE_STAMPS_OWN_CLOCK,
    /** reconcile marks every orphan of the named orphan's order and token. */
    RECONCILE_MARKS_TOKEN,
    /** a listing returns one more item than the page size (the one read to see if more exist). */
    PAGE_SIZE_PLUS_ONE,
    /** the stuck and failed listings' cutoffs are measured from the system clock. */
    AGES_BY_SYSTEM_CLOCK,
    /** the mismatch check leaves the product out. */
    MISMATCH_IGNORES_PRODUCT,
    /** the mismatch check leaves the quantity out. */
    MISMATCH_IGNORES_QUANTITY,
    /** the mismatch check leaves the amount out. */
    MISMATCH_IGNORES_AMOUNT,
    /** the mismatch check leaves the currency out. */
    MISMATCH_IGNORES_CURRENCY,
    /** the currency is compared with its case, so "usd" and "USD" are two orders. */
    CURRENCY_CASE_SENSITIVE,
    /** the e-mail is compared too, so a corrected e-mail is another order. */
    EMAIL_COMPARED,
    /** no mismatch check at all: a claim of another order answers as any claim (as before). */
    MISMATCH_NOT_DECIDED,
    /**
     * the mismatch check runs only where the claim would be granted, so a held or provisioned order
     * answers InFlight or Provisioned to another order.
     */
    MISMATCH_ONLY_WHEN_CLAIMABLE,
    /** the claim stores the offered snapshot first, then compares and answers Mismatch. */
    MISMATCH_AFTER_WRITE,
    /** a mismatched claim answers Mismatch but records no row. */
    MISMATCH_NOT_RECORDED,
    /** one row per order: a second mismatch of an order replaces the first row. */
    MISMATCH_ROW_PER_ORDER,
    /** the mismatch listing's cursor holds only recordedAt, so rows tied on it are skipped. */
    MISMATCH_CURSOR_BY_TIME_ONLY,
    /** mismatches are listed by session id, not oldest first. */
    MISMATCHES_BY_SESSION_ID
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
    private final List<Mismatch> mismatches = new ArrayList<>();

    /** Each token's own lease end, for {@link Break#FENCE_BY_LEASE_TIME}. */
    private final Map<ClaimId, Instant> leases = new HashMap<>();

    /** The reconciliation marks, by orphan. */
    private final Map<OrphanId, OrphanRecord> marks = new HashMap<>();

    /**
     * Each orphan's place in the order of recording, for {@link Break#ORPHANS_IN_RECORDING_ORDER}.
     */
    private final Map<OrphanId, Integer> recorded = new HashMap<>();

    /** The listings taken whole at their first page, for {@link Break#SNAPSHOT_PAGING}. */
    private final List<List<OrphanRecord>> snapshots = new ArrayList<>();

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

  /** Whether two tokens are the same: equal, or equal in 32 bits of fence for its break. */
  private boolean same(ClaimId a, ClaimId b) {
    if (a == null || b == null || !has(Break.FENCE_AS_INT)) {
      return Objects.equals(a, b);
    }
    return (int) a.fence() == (int) b.fence() && a.nonce().equals(b.nonce());
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
    window(sessionId, WINDOW_MILLIS);
  }

  /**
   * The reconcile race's window waits longer: few calls pass it (only the admin rules reconcile),
   * and on a loaded machine eight threads released together can take more than {@link
   * #WINDOW_MILLIS} to reach it, which let the racy mark pass on an unlucky run.
   */
  private static final long RECONCILE_WINDOW_MILLIS = 400;

  private void window(String sessionId, long millis) {
    CountDownLatch meeting = data.windows.computeIfAbsent(sessionId, k -> new CountDownLatch(2));
    meeting.countDown();
    try {
      meeting.await(millis, TimeUnit.MILLISECONDS);
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
      ClaimId claimId = new ClaimId(1, nonce);
      OrderRecord created =
          new OrderRecord(
              snapshot, OrderStatus.PENDING, null, null, claimId, now, expires, 1, null, now);
      data.orders.put(sid, created);
      data.leases.put(claimId, expires);
      return new ClaimResult.Claimed(claimId, created);
    }
    boolean claimable =
        current.status() != OrderStatus.PROVISIONED
            && (current.claimId() == null || !now.isBefore(current.leaseExpiresAt()));
    if (!has(Break.MISMATCH_NOT_DECIDED)
        && (claimable || !has(Break.MISMATCH_ONLY_WHEN_CLAIMABLE))) {
      Set<OrderField> differing = differing(current.snapshot(), snapshot);
      if (!differing.isEmpty()) {
        OrderRecord answered = current;
        if (has(Break.MISMATCH_AFTER_WRITE)) {
          answered = withSnapshot(current, snapshot, now);
          data.orders.put(sid, answered);
        }
        // a row needs snapshots that differ as OrderField says: the case and e-mail breaks have
        // none
        if (!has(Break.MISMATCH_NOT_RECORDED)
            && !OrderField.differing(current.snapshot(), snapshot).isEmpty()) {
          if (has(Break.MISMATCH_ROW_PER_ORDER)) {
            data.mismatches.removeIf(m -> m.sessionId().equals(sid));
          }
          data.mismatches.add(
              new Mismatch(new MismatchId(sid, nonce), now, current.snapshot(), snapshot));
        }
        return new ClaimResult.Mismatch(answered, differing);
      }
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
    ClaimId claimId = new ClaimId(fence, nonce);
    OrderRecord claimed =
        new OrderRecord(
            has(Break.SNAPSHOT_OVERWRITTEN) ? snapshot : current.snapshot(),
            OrderStatus.PENDING,
            null,
            has(Break.LAST_ERROR_CLEARED) ? null : current.lastError(),
            claimId,
            now,
            expires,
            fence,
            current.settledBy(),
            now,
            has(Break.FAILURES_RESET_ON_CLAIM) ? 0 : current.failures(),
            has(Break.FAILURES_RESET_ON_CLAIM) ? null : current.failedSince());
    data.orders.put(sid, claimed);
    data.leases.put(claimId, expires);
    return new ClaimResult.Claimed(claimId, claimed);
  }

  /** The fields that differ, from the contract (written apart from OrderField.differing). */
  private Set<OrderField> differing(OrderSnapshot stored, OrderSnapshot offered) {
    Set<OrderField> found = EnumSet.noneOf(OrderField.class);
    if (!has(Break.MISMATCH_IGNORES_PRODUCT) && !stored.productId().equals(offered.productId())) {
      found.add(OrderField.PRODUCT_ID);
    }
    if (!has(Break.MISMATCH_IGNORES_QUANTITY) && stored.quantity() != offered.quantity()) {
      found.add(OrderField.QUANTITY);
    }
    if (!has(Break.MISMATCH_IGNORES_AMOUNT) && stored.amountTotal() != offered.amountTotal()) {
      found.add(OrderField.AMOUNT_TOTAL);
    }
    boolean sameCurrency =
        has(Break.CURRENCY_CASE_SENSITIVE)
            ? stored.currency().equals(offered.currency())
            : stored.currency().equalsIgnoreCase(offered.currency());
    if (!has(Break.MISMATCH_IGNORES_CURRENCY) && !sameCurrency) {
      found.add(OrderField.CURRENCY);
    }
    if (has(Break.EMAIL_COMPARED)
        && !Objects.equals(stored.customerEmail(), offered.customerEmail())) {
      found.add(OrderField.PRODUCT_ID); // named as the product: there is no e-mail field to name
    }
    return found;
  }

  private static OrderRecord withSnapshot(OrderRecord r, OrderSnapshot snapshot, Instant now) {
    return new OrderRecord(
        snapshot,
        r.status(),
        r.item(),
        r.lastError(),
        r.claimId(),
        r.claimedAt(),
        r.leaseExpiresAt(),
        r.fence(),
        r.settledBy(),
        now,
        r.failures(),
        r.failedSince());
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
    ClaimId claimId = request.claimId();
    boolean replay =
        same(claimId, current.settledBy())
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
                        same(o.claimId(), claimId)
                            && o.item().providerOrderId().equals(item.providerOrderId()));
        if (!known || has(Break.ORPHAN_PER_RETRY)) {
          Orphan orphan = new Orphan(sid, claimId, item, now);
          list.add(orphan);
          data.recorded.putIfAbsent(OrphanId.of(orphan), data.recorded.size());
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
                now,
                current.failures(),
                current.failedSince());
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
              claimId,
              now,
              current.failures(),
              current.failedSince());
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
              claimId,
              now,
              current.failures() + 1,
              current.failedSince() == null ? now : current.failedSince());
    } else {
      Instant expires = now.plusMillis(((WriteRequest.Extend) request).lease().toMillis());
      if (has(Break.EXTEND_KEEPS_LATER_END) && current.leaseExpiresAt().isAfter(expires)) {
        expires = current.leaseExpiresAt();
      }
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
              now,
              current.failures(),
              current.failedSince());
      data.leases.put(claimId, expires);
    }
    data.orders.put(sid, next);
    return new WriteResult.Written(has(Break.WRITTEN_ANSWERS_OLD_RECORD) ? current : next);
  }

  /** Whether the write may land: the fence, or its deliberate break. */
  private boolean accepts(OrderRecord current, WriteRequest request, Instant now) {
    ClaimId claimId = request.claimId();
    boolean complete = request instanceof WriteRequest.Complete;
    boolean fail = request instanceof WriteRequest.Fail;
    if ((complete && has(Break.NO_FENCE_ON_COMPLETE)) || (fail && has(Break.NO_FENCE_ON_FAIL))) {
      return true;
    }
    if ((complete || fail) && has(Break.FENCE_BY_LEASE_TIME)) {
      Instant expires = data.leases.get(claimId);
      return expires != null && now.isBefore(expires) && current.claimId() != null;
    }
    if (current.claimId() == null) {
      return false;
    }
    if (has(Break.NONCE_IGNORED)) {
      return current.claimId().fence() == claimId.fence();
    }
    if (has(Break.FENCE_IGNORED)) {
      return current.claimId().nonce().equals(claimId.nonce());
    }
    if (has(Break.NEWER_FENCE_ACCEPTED) && claimId.fence() > current.claimId().fence()) {
      return true;
    }
    return same(current.claimId(), claimId);
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
      if (has(Break.ORPHANS_BY_KEY_PREFIX)) {
        List<Orphan> scanned = new ArrayList<>();
        data.orphans.forEach(
            (sid, list) -> {
              if (sid.equals(sessionId) || sid.startsWith(sessionId + ":")) {
                scanned.addAll(list);
              }
            });
        return scanned;
      }
      return List.copyOf(data.orphans.getOrDefault(sessionId, List.of()));
    }
  }

  // ------------------------------------------------------------------ the admin role

  private static final Comparator<OrphanRecord> IDENTITY_ORDER =
      Comparator.comparing((OrphanRecord o) -> o.orphan().sessionId())
          .thenComparingLong(o -> o.orphan().claimId().fence())
          .thenComparing(o -> o.orphan().claimId().nonce())
          .thenComparing(o -> o.orphan().item().providerOrderId());

  private static final Comparator<OrphanRecord> ORPHAN_ORDER =
      Comparator.comparing((OrphanRecord o) -> o.orphan().recordedAt())
          .thenComparing(IDENTITY_ORDER);

  /** The order the orphan listing sorts and pages by: the contract's, or its break's. */
  private Comparator<OrphanRecord> orphanOrder() {
    Comparator<OrphanRecord> byTime = Comparator.comparing(o -> o.orphan().recordedAt());
    if (has(Break.ORPHANS_BY_IDENTITY)) {
      return IDENTITY_ORDER;
    }
    if (has(Break.ORPHANS_IN_RECORDING_ORDER)) {
      return Comparator.comparingInt(o -> data.recorded.get(o.id()));
    }
    if (has(Break.ORPHAN_KEY_WITHOUT_TOKEN)) {
      return byTime
          .thenComparing(o -> o.orphan().sessionId())
          .thenComparing(o -> o.orphan().item().providerOrderId());
    }
    if (has(Break.FENCE_AS_DOUBLE)) {
      return byTime
          .thenComparing(o -> o.orphan().sessionId())
          .thenComparingDouble(o -> (double) o.orphan().claimId().fence())
          .thenComparing(o -> o.orphan().claimId().nonce())
          .thenComparing(o -> o.orphan().item().providerOrderId());
    }
    return ORPHAN_ORDER;
  }

  /** How many items a page holds beyond its size: one for {@link Break#PAGE_SIZE_PLUS_ONE}. */
  private int extra() {
    return has(Break.PAGE_SIZE_PLUS_ONE) ? 1 : 0;
  }

  /** A cursor's text field, encoded so it holds no '|' (ids may). */
  private static String encode(String field) {
    return URLEncoder.encode(field, StandardCharsets.UTF_8);
  }

  private static String decode(String field) {
    return URLDecoder.decode(field, StandardCharsets.UTF_8);
  }

  private static int pageSize(int pageSize, boolean checkUpperBound) {
    if (pageSize < 1 || (checkUpperBound && pageSize > MAX_PAGE_SIZE)) {
      throw new IllegalArgumentException(
          "pageSize must be 1 to " + MAX_PAGE_SIZE + ": " + pageSize);
    }
    return pageSize;
  }

  private Instant ago(String name, Duration age) {
    Objects.requireNonNull(age, name);
    if (age.isNegative() || age.compareTo(MAX_AGE) > 0) {
      throw new IllegalArgumentException(name + " out of range: " + age);
    }
    return (has(Break.AGES_BY_SYSTEM_CLOCK) ? Instant.now() : now()).minus(age);
  }

  /** A cursor's fields after its listing's tag, or null for the first page. */
  private static String[] cursor(String tag, String cursor) {
    if (cursor == null) {
      return null;
    }
    String[] fields = cursor.split("\\|", -1);
    if (!fields[0].equals(tag)) {
      throw new IllegalArgumentException("cursor is not one of this listing: " + cursor);
    }
    return fields;
  }

  private OrphanRecord markOf(Orphan orphan) {
    OrphanRecord mark = data.marks.get(OrphanId.of(orphan));
    return mark != null ? mark : OrphanRecord.unreconciled(orphan);
  }

  @Override
  public Page<OrphanRecord> unreconciledOrphans(String cursor, int pageSize) {
    boolean snapshot = has(Break.SNAPSHOT_PAGING);
    boolean offset = has(Break.OFFSET_PAGING);
    String[] after = cursor(snapshot ? "snapshot" : offset ? "offset" : "orphan", cursor);
    int size = pageSize(pageSize, !has(Break.ADMIN_INPUT_UNCHECKED)) + extra();
    synchronized (data.lock) {
      List<OrphanRecord> sorted;
      int snapshotId;
      if (snapshot && after != null) {
        snapshotId = Integer.parseInt(after[1]);
        sorted = data.snapshots.get(snapshotId);
      } else {
        sorted = new ArrayList<>();
        for (List<Orphan> list : data.orphans.values()) {
          for (Orphan orphan : list) {
            OrphanRecord record = markOf(orphan);
            if (!record.reconciled() || has(Break.RECONCILED_STILL_LISTED)) {
              sorted.add(record);
            }
          }
        }
        sorted.sort(orphanOrder());
        snapshotId = data.snapshots.size();
        if (snapshot) {
          data.snapshots.add(List.copyOf(sorted));
        }
      }
      int from = 0;
      if (after != null && (snapshot || offset)) {
        from = Integer.parseInt(after[snapshot ? 2 : 1]);
      } else if (after != null) {
        Instant at = Instant.ofEpochMilli(Long.parseLong(after[1]));
        while (from < sorted.size() && !isAfter(sorted.get(from), at, after)) {
          from++;
        }
      }
      List<OrphanRecord> items =
          sorted.subList(Math.min(from, sorted.size()), Math.min(from + size, sorted.size()));
      if (from + size >= sorted.size()) {
        return new Page<>(items, null);
      }
      OrphanRecord last = items.get(items.size() - 1);
      String next;
      if (snapshot) {
        next = "snapshot|" + snapshotId + "|" + (from + size);
      } else if (offset) {
        next = "offset|" + (from + size);
      } else {
        Orphan o = last.orphan();
        ClaimId claimId = o.claimId();
        if (has(Break.FENCE_AS_DOUBLE)) {
          claimId = new ClaimId((long) (double) claimId.fence(), claimId.nonce());
        }
        next =
            "orphan|"
                + o.recordedAt().toEpochMilli()
                + "|"
                + encode(o.sessionId())
                + "|"
                + claimId
                + "|"
                + encode(o.item().providerOrderId());
      }
      return new Page<>(items, next);
    }
  }

  /** Whether {@code orphan} sorts after the cursor's orphan. */
  private boolean isAfter(OrphanRecord orphan, Instant at, String[] after) {
    if (has(Break.CURSOR_BY_TIME_ONLY)) {
      return orphan.orphan().recordedAt().isAfter(at);
    }
    ClaimId claimId = ClaimId.parse(after[3]);
    Orphan key = new Orphan(decode(after[2]), claimId, new Item(decode(after[4]), null), at);
    return orphanOrder().compare(orphan, OrphanRecord.unreconciled(key)) > 0;
  }

  @Override
  public Optional<OrphanRecord> orphan(OrphanId id) {
    Objects.requireNonNull(id, "id");
    synchronized (data.lock) {
      return find(id);
    }
  }

  private Optional<OrphanRecord> find(OrphanId id) {
    for (Orphan orphan : data.orphans.getOrDefault(id.sessionId(), List.of())) {
      boolean same =
          same(orphan.claimId(), id.claimId())
              && (has(Break.LOOKUP_IGNORES_PROVIDER_ORDER)
                  || orphan.item().providerOrderId().equals(id.providerOrderId()));
      if (same) {
        return Optional.of(markOf(orphan));
      }
    }
    return Optional.empty();
  }

  @Override
  public ReconcileResult reconcile(OrphanId id, String note, Instant reconciledAt) {
    Objects.requireNonNull(id, "id");
    Validate.text(
        "note", note, has(Break.NOTE_LIMIT_OFF_BY_ONE) ? MAX_NOTE_LENGTH - 1 : MAX_NOTE_LENGTH);
    Objects.requireNonNull(reconciledAt, "reconciledAt");
    Instant at = (has(Break.RECONCILE_STAMPS_OWN_CLOCK) ? now() : reconciledAt);
    at = at.truncatedTo(ChronoUnit.MILLIS);
    OrphanRecord seen;
    if (has(Break.RACY_RECONCILE) || has(Break.RACY_RECONCILE_NARROW)) {
      synchronized (data.lock) {
        seen = find(id).orElseThrow(() -> new UnknownOrphanException("broken", id));
      }
      if (has(Break.RACY_RECONCILE)) {
        window("reconcile " + id, RECONCILE_WINDOW_MILLIS);
      } else {
        Thread.yield();
      }
      synchronized (data.lock) {
        return decideMark(seen, note, at);
      }
    }
    synchronized (data.lock) {
      seen = find(id).orElseThrow(() -> new UnknownOrphanException("broken", id));
      return decideMark(seen, note, at);
    }
  }

  private ReconcileResult decideMark(OrphanRecord seen, String note, Instant at) {
    if (seen.reconciled() && !has(Break.REMARK_OVERWRITES)) {
      return note.equals(seen.note())
          ? new ReconcileResult.Reconciled(seen)
          : new ReconcileResult.AlreadyReconciled(seen);
    }
    OrphanRecord marked = new OrphanRecord(seen.orphan(), note, at);
    data.marks.put(marked.id(), marked);
    if (has(Break.RECONCILE_MARKS_TOKEN)) {
      for (Orphan other : data.orphans.get(seen.orphan().sessionId())) {
        if (other.claimId().equals(seen.orphan().claimId())) {
          data.marks.putIfAbsent(OrphanId.of(other), new OrphanRecord(other, note, at));
        }
      }
    }
    return new ReconcileResult.Reconciled(marked);
  }

  private static final Comparator<Mismatch> MISMATCH_ORDER =
      Comparator.comparing(Mismatch::recordedAt)
          .thenComparing(Mismatch::sessionId)
          .thenComparing(m -> m.id().nonce());

  @Override
  public Page<Mismatch> mismatches(String cursor, int pageSize) {
    String[] after = cursor(has(Break.MISMATCHES_BY_SESSION_ID) ? "by-sid" : "mismatch", cursor);
    int size = pageSize(pageSize, !has(Break.ADMIN_INPUT_UNCHECKED)) + extra();
    Comparator<Mismatch> order =
        has(Break.MISMATCHES_BY_SESSION_ID)
            ? Comparator.comparing(Mismatch::sessionId).thenComparing(m -> m.id().nonce())
            : MISMATCH_ORDER;
    List<Mismatch> sorted;
    synchronized (data.lock) {
      sorted = data.mismatches.stream().sorted(order).toList();
    }
    List<Mismatch> items = new ArrayList<>();
    boolean more = false;
    for (Mismatch row : sorted) {
      if (after != null && !mismatchAfter(row, after)) {
        continue;
      }
      if (items.size() == size) {
        more = true;
        break;
      }
      items.add(row);
    }
    if (!more) {
      return new Page<>(items, null);
    }
    Mismatch last = items.get(items.size() - 1);
    String tag = has(Break.MISMATCHES_BY_SESSION_ID) ? "by-sid" : "mismatch";
    return new Page<>(
        items,
        String.join(
            "|",
            tag,
            Long.toString(last.recordedAt().toEpochMilli()),
            encode(last.sessionId()),
            last.id().nonce()));
  }

  /** Whether {@code row} sorts after the cursor's row, in the listing's order or its break's. */
  private boolean mismatchAfter(Mismatch row, String[] after) {
    Instant at = Instant.ofEpochMilli(Long.parseLong(after[1]));
    String sid = decode(after[2]);
    String nonce = after[3];
    if (has(Break.MISMATCH_CURSOR_BY_TIME_ONLY)) {
      return row.recordedAt().isAfter(at);
    }
    if (has(Break.MISMATCHES_BY_SESSION_ID)) {
      int c = row.sessionId().compareTo(sid);
      return c > 0 || (c == 0 && row.id().nonce().compareTo(nonce) > 0);
    }
    int c = row.recordedAt().compareTo(at);
    if (c == 0) {
      c = row.sessionId().compareTo(sid);
    }
    if (c == 0) {
      c = row.id().nonce().compareTo(nonce);
    }
    return c > 0;
  }

  @Override
  public Page<OrderRecord> stuckOrders(Duration expiredFor, String cursor, int pageSize) {
    Instant cutoff = ago("expiredFor", expiredFor);
    String tag = has(Break.ORDER_CURSORS_SHARED) ? "order" : "stuck";
    String[] after = orderCursor(tag, cursor);
    int size = pageSize(pageSize, !has(Break.ADMIN_INPUT_UNCHECKED)) + extra();
    return orders(
        tag,
        r ->
            r.claimId() != null
                && !(has(Break.STUCK_BY_CLAIMED_AT) ? r.claimedAt() : r.leaseExpiresAt())
                    .isAfter(cutoff),
        has(Break.STUCK_BY_SESSION_ID) ? r -> Instant.EPOCH : OrderRecord::leaseExpiresAt,
        after,
        size);
  }

  @Override
  public Page<OrderRecord> failedOrders(
      int minFailures, Duration failingFor, String cursor, int pageSize) {
    if (minFailures < 1) {
      throw new IllegalArgumentException("minFailures must be at least 1: " + minFailures);
    }
    Instant cutoff = ago("failingFor", failingFor);
    String tag = has(Break.ORDER_CURSORS_SHARED) ? "order" : "failed";
    String[] after =
        has(Break.FAILED_CURSOR_UNCHECKED) ? anyCursor(cursor) : orderCursor(tag, cursor);
    int size = pageSize(pageSize, !has(Break.ADMIN_INPUT_UNCHECKED)) + extra();
    java.util.function.Function<OrderRecord, Instant> key =
        has(Break.FAILED_BY_SESSION_ID)
            ? r -> Instant.EPOCH
            : has(Break.FAILED_BY_LAST_FAILURE) ? OrderRecord::updatedAt : OrderRecord::failedSince;
    return orders(
        tag,
        r ->
            r.status() == OrderStatus.FAILED
                && (r.failures() >= minFailures || !r.failedSince().isAfter(cutoff)),
        key,
        after,
        size);
  }

  /** For {@link Break#FAILED_CURSOR_UNCHECKED}: any cursor's fields, whichever listing wrote it. */
  private static String[] anyCursor(String cursor) {
    if (cursor == null) {
      return null;
    }
    String[] fields = cursor.split("\\|", -1);
    if (fields.length < 3) {
      throw new IllegalArgumentException("cursor is not a cursor: " + cursor);
    }
    return fields;
  }

  /**
   * The fields of a cursor of an order listing; for {@link Break#CURSOR_SPLITS_ON_COLON} split on
   * every ':'.
   */
  private String[] orderCursor(String tag, String cursor) {
    if (cursor == null || !has(Break.CURSOR_SPLITS_ON_COLON)) {
      return cursor(tag, cursor);
    }
    String[] fields = cursor.split(":");
    if (!fields[0].equals(tag)) {
      throw new IllegalArgumentException("cursor is not one of this listing: " + cursor);
    }
    return fields;
  }

  private Page<OrderRecord> orders(
      String tag,
      java.util.function.Predicate<OrderRecord> wanted,
      java.util.function.Function<OrderRecord, Instant> key,
      String[] after,
      int size) {
    Comparator<OrderRecord> order = Comparator.comparing(key).thenComparing(OrderRecord::sessionId);
    List<OrderRecord> sorted;
    synchronized (data.lock) {
      sorted = data.orders.values().stream().filter(wanted).sorted(order).toList();
    }
    if (has(Break.ORDER_OFFSET_PAGING)) {
      int from = after == null ? 0 : Integer.parseInt(after[1]);
      int to = Math.min(from + size, sorted.size());
      List<OrderRecord> page = sorted.subList(Math.min(from, to), to);
      return new Page<>(page, to < sorted.size() ? tag + "|" + to : null);
    }
    List<OrderRecord> items = new ArrayList<>();
    Instant afterAt = after == null ? null : Instant.ofEpochMilli(Long.parseLong(after[1]));
    String afterId =
        after == null ? null : has(Break.CURSOR_SPLITS_ON_COLON) ? after[2] : decode(after[2]);
    boolean more = false;
    for (OrderRecord record : sorted) {
      if (afterAt != null) {
        int c = key.apply(record).compareTo(afterAt);
        if (c < 0 || (c == 0 && record.sessionId().compareTo(afterId) <= 0)) {
          continue;
        }
      }
      if (items.size() == size) {
        more = true;
        break;
      }
      items.add(record);
    }
    if (!more) {
      return new Page<>(items, null);
    }
    OrderRecord last = items.get(items.size() - 1);
    String at = Long.toString(key.apply(last).toEpochMilli());
    if (has(Break.CURSOR_SPLITS_ON_COLON)) {
      return new Page<>(items, String.join(":", tag, at, last.sessionId()));
    }
    return new Page<>(items, String.join("|", tag, at, encode(last.sessionId())));
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "BrokenStore[" + (broken == null ? "correct" : broken) + "]";
  }
}
