package org.fencekit.store.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.BiFunction;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.spi.AdminQueries.MismatchPosition;
import org.fencekit.store.spi.AdminStorage;
import org.fencekit.store.spi.FencedAdminOrderStore;
import org.fencekit.store.spi.Storage;

/**
 * The reference {@link org.fencekit.store.OrderStore}: orders in a {@link ConcurrentHashMap}, for
 * tests, for a single process that can afford to lose everything on restart, and as the model the
 * other stores are measured against.
 *
 * <p>Algorithm, per operation:
 *
 * <ol>
 *   <li>validate the arguments;
 *   <li>enter {@link ConcurrentHashMap#compute} on the order's key, which excludes every other
 *       writer of that key (and of keys sharing its bin) while it runs; there is no global lock;
 *   <li>read the order and the clock, decide with {@link org.fencekit.store.spi.OrderStateMachine};
 *   <li>publish the new immutable record as the key's value, or keep the old one, and the order's
 *       new immutable list of orphans, if it has one, in a second map written only inside that
 *       {@code compute}: a reader sees either the whole record or list or none of it;
 *   <li>in the same {@code compute}, move the order's keys in the three sorted indexes the admin
 *       listings walk (unreconciled orphans, held claims by lease end, FAILED orders by first
 *       failure); a listing reads each order it finds through {@code computeIfPresent}, which waits
 *       for a write in progress, and lists it only if the order still matches the key;
 *   <li>in the same {@code compute}, once the decision is made, add a mismatched claim's record to
 *       the sorted map of mismatches (immutable, never removed, so the listing reads it as it is).
 * </ol>
 *
 * Nothing survives the JVM: use a durable store wherever two processes handle webhooks. Closing the
 * store releases nothing; the orders stay readable.
 */
public final class MemoryOrderStore extends FencedAdminOrderStore {

  /** A store whose leases run on {@code clock}. */
  public MemoryOrderStore(Clock clock) {
    super(new MapStorage(), clock);
  }

  /** A store on the system clock. */
  public MemoryOrderStore() {
    this(Clock.systemUTC());
  }

  /** Where {@code record} sits in the index of held claims by lease end; null if not there. */
  private static OrderKey claimKey(OrderRecord record) {
    return record == null || record.claimId() == null
        ? null
        : new OrderKey(record.leaseExpiresAt(), record.sessionId());
  }

  /**
   * Where {@code record} sits in the index of FAILED orders by first failure; null if not there.
   */
  private static OrderKey failureKey(OrderRecord record) {
    return record == null || record.status() != OrderStatus.FAILED
        ? null
        : new OrderKey(record.failedSince(), record.sessionId());
  }

  /** An unreconciled orphan's place in its index: its sort key. */
  private record OrphanKey(Instant recordedAt, OrphanId id) {
    static OrphanKey of(Orphan orphan) {
      return new OrphanKey(orphan.recordedAt(), OrphanId.of(orphan));
    }
  }

  /** An order's place in an order index. */
  private record OrderKey(Instant at, String sessionId) {}

  private static final Comparator<OrphanKey> ORPHAN_ORDER =
      Comparator.comparing(OrphanKey::recordedAt)
          .thenComparing(k -> k.id().sessionId())
          .thenComparingLong(k -> k.id().claimId().fence())
          .thenComparing(k -> k.id().claimId().nonce())
          .thenComparing(k -> k.id().providerOrderId());

  private static final Comparator<MismatchPosition> MISMATCH_ORDER =
      Comparator.comparing(MismatchPosition::recordedAt)
          .thenComparing(p -> p.id().sessionId())
          .thenComparing(p -> p.id().nonce());

  private static final Comparator<OrderKey> ORDER_ORDER =
      Comparator.comparing(OrderKey::at).thenComparing(OrderKey::sessionId);

  /**
   * The storage: a map of records whose {@code compute} is the atomic step, the orders' orphans,
   * three sorted indexes, and the mismatches by their sort key.
   */
  private static final class MapStorage implements AdminStorage {

    private final ConcurrentHashMap<String, OrderRecord> orders = new ConcurrentHashMap<>();

    /** Each order's orphans, if it has any; written only inside that order's {@code compute}. */
    private final ConcurrentHashMap<String, List<OrphanRecord>> orphanLists =
        new ConcurrentHashMap<>();

    private final ConcurrentSkipListSet<OrphanKey> unreconciled =
        new ConcurrentSkipListSet<>(ORPHAN_ORDER);
    private final ConcurrentSkipListSet<OrderKey> claims = new ConcurrentSkipListSet<>(ORDER_ORDER);
    private final ConcurrentSkipListSet<OrderKey> failures =
        new ConcurrentSkipListSet<>(ORDER_ORDER);
    private final ConcurrentSkipListMap<MismatchPosition, Mismatch> mismatches =
        new ConcurrentSkipListMap<>(MISMATCH_ORDER);

    @Override
    public String backend() {
      return "memory";
    }

    @Override
    public <T> T atomically(String operation, String sessionId, Work<T> work) {
      Step step = STEPS.get();
      if (step.work != null) { // a work that opened another step: that one gets a step of its own
        step = new Step();
      }
      try {
        step.storage = this;
        step.work = work;
        orders.compute(sessionId, step);
        @SuppressWarnings("unchecked") // the result of this call's work, which returned a T
        T result = (T) step.result;
        return result;
      } finally {
        step.clear();
      }
    }

    /**
     * Moves the order's keys in the indexes and adds the step's mismatch, inside its {@code
     * compute}.
     */
    private void reindex(
        OrderRecord before, OrderRecord after, List<Orphan> added, Mismatch mismatch) {
      if (mismatch != null) {
        mismatches.putIfAbsent(
            new MismatchPosition(mismatch.recordedAt(), mismatch.id()), mismatch);
      }
      if (before != after) {
        move(claims, claimKey(before), claimKey(after));
        move(failures, failureKey(before), failureKey(after));
      }
      for (int i = 0; i < added.size(); i++) {
        unreconciled.add(OrphanKey.of(added.get(i)));
      }
    }

    private static void move(Set<OrderKey> index, OrderKey from, OrderKey to) {
      if (from != null && !from.equals(to)) {
        index.remove(from);
      }
      if (to != null && !to.equals(from)) {
        index.add(to);
      }
    }

    /** The index's keys strictly after {@code after}; all of them for {@code null}. */
    private static NavigableSet<OrderKey> from(NavigableSet<OrderKey> index, OrderPosition after) {
      return after == null
          ? index
          : index.tailSet(new OrderKey(after.at(), after.sessionId()), false);
    }

    @Override
    public Optional<OrderRecord> read(String sessionId) {
      return Optional.ofNullable(orders.get(sessionId));
    }

    @Override
    public List<Orphan> orphans(String sessionId) {
      return orphanLists.getOrDefault(sessionId, List.of()).stream()
          .map(OrphanRecord::orphan)
          .toList();
    }

    /** The order as published after any write to it in progress. */
    private OrderRecord settled(String sessionId) {
      return orders.computeIfPresent(sessionId, (key, record) -> record);
    }

    @Override
    public List<OrphanRecord> unreconciledOrphans(OrphanPosition after, int limit) {
      List<OrphanRecord> found = new ArrayList<>();
      var from =
          after == null
              ? unreconciled
              : unreconciled.tailSet(new OrphanKey(after.recordedAt(), after.id()), false);
      for (OrphanKey key : from) {
        if (found.size() == limit) {
          break;
        }
        settled(key.id().sessionId());
        orphan(key.id()).filter(orphan -> !orphan.reconciled()).ifPresent(found::add);
      }
      return found;
    }

    @Override
    public List<Mismatch> mismatches(MismatchPosition after, int limit) {
      var from = after == null ? mismatches : mismatches.tailMap(after, false);
      List<Mismatch> found = new ArrayList<>();
      for (Mismatch mismatch : from.values()) {
        if (found.size() == limit) {
          break;
        }
        found.add(mismatch);
      }
      return found;
    }

    @Override
    public Optional<OrphanRecord> orphan(OrphanId id) {
      return orphanLists.getOrDefault(id.sessionId(), List.of()).stream()
          .filter(o -> o.id().equals(id))
          .findFirst();
    }

    @Override
    public Optional<OrphanRecord> markReconciled(OrphanId id, String note, Instant reconciledAt) {
      List<OrphanRecord> result = new ArrayList<>(1);
      orders.computeIfPresent(
          id.sessionId(),
          (key, record) -> {
            List<OrphanRecord> orphans = new ArrayList<>(orphanLists.getOrDefault(key, List.of()));
            for (int i = 0; i < orphans.size(); i++) {
              OrphanRecord orphan = orphans.get(i);
              if (!orphan.id().equals(id)) {
                continue;
              }
              if (orphan.reconciled()) {
                result.add(orphan);
                return record;
              }
              OrphanRecord marked = new OrphanRecord(orphan.orphan(), note, reconciledAt);
              orphans.set(i, marked);
              unreconciled.remove(OrphanKey.of(orphan.orphan()));
              result.add(marked);
              orphanLists.put(key, List.copyOf(orphans));
              return record;
            }
            return record;
          });
      return result.stream().findFirst();
    }

    @Override
    public List<OrderRecord> stuckOrders(Instant expiredBy, OrderPosition after, int limit) {
      List<OrderRecord> found = new ArrayList<>();
      for (OrderKey key : from(claims, after)) {
        if (found.size() == limit || key.at().isAfter(expiredBy)) {
          break;
        }
        OrderRecord record = settled(key.sessionId());
        if (key.equals(claimKey(record))) {
          found.add(record);
        }
      }
      return found;
    }

    @Override
    public List<OrderRecord> failedOrders(
        int minFailures, Instant failedBy, OrderPosition after, int limit) {
      List<OrderRecord> found = new ArrayList<>();
      for (OrderKey key : from(failures, after)) {
        if (found.size() == limit) {
          break;
        }
        OrderRecord record = settled(key.sessionId());
        if (!key.equals(failureKey(record))) {
          continue;
        }
        if (record.failures() >= minFailures || !record.failedSince().isAfter(failedBy)) {
          found.add(record);
        }
      }
      return found;
    }

    @Override
    public void close() {}
  }

  /**
   * Each thread's step, reused by its next call to any memory store (a step lives only inside one
   * {@code compute}), and cleared after each call, so that it keeps no store or order alive.
   */
  private static final ThreadLocal<Step> STEPS = ThreadLocal.withInitial(Step::new);

  /**
   * One atomic step: {@link ConcurrentHashMap#compute}'s function and the order inside it, which
   * collects the writes (published only if the work returns) and keeps the work's result; one
   * object per thread ({@link #STEPS}).
   */
  private static final class Step
      implements BiFunction<String, OrderRecord, OrderRecord>, Storage.LockedOrder {

    private MapStorage storage;
    private Storage.Work<?> work;
    private String sessionId;
    private Object result;
    private OrderRecord before;
    private OrderRecord record;
    private List<OrphanRecord> orphans; // read when an orphan is added
    private List<Orphan> added = List.of();
    private Mismatch mismatch;

    /** Forgets the call: nothing of one store or order is kept for the thread's next step. */
    void clear() {
      storage = null;
      work = null;
      sessionId = null;
      result = null;
      before = null;
      record = null;
      orphans = null;
      added = List.of();
      mismatch = null;
    }

    @Override
    public OrderRecord apply(String sessionId, OrderRecord current) {
      this.sessionId = sessionId;
      before = current;
      record = current;
      result = work.run(this);
      if (!added.isEmpty()) {
        storage.orphanLists.put(sessionId, orphans);
      }
      storage.reindex(before, record, added, mismatch);
      return record;
    }

    @Override
    public Optional<OrderRecord> current() {
      return Optional.ofNullable(record);
    }

    @Override
    public boolean insert(OrderRecord created) {
      if (record != null) {
        return false;
      }
      record = created;
      return true;
    }

    @Override
    public void update(OrderRecord next) {
      if (record == null) {
        throw new IllegalStateException(
            "update of order '" + next.sessionId() + "' that does not exist");
      }
      record = next;
    }

    @Override
    public void addOrphan(Orphan orphan) {
      OrphanId id = OrphanId.of(orphan);
      if (orphans == null) {
        orphans = storage.orphanLists.getOrDefault(sessionId, List.of());
      }
      for (OrphanRecord known : orphans) {
        if (known.id().equals(id)) {
          return;
        }
      }
      List<OrphanRecord> more = new ArrayList<>(orphans.size() + 1);
      more.addAll(orphans);
      more.add(OrphanRecord.unreconciled(orphan));
      orphans = List.copyOf(more);
      if (added.isEmpty()) {
        added = new ArrayList<>(1);
      }
      added.add(orphan);
    }

    @Override
    public void addMismatch(Mismatch refused) {
      if (mismatch != null) {
        throw new IllegalStateException(
            "a claim records one mismatch; order '" + refused.sessionId() + "' got a second");
      }
      mismatch = refused;
    }
  }
}
