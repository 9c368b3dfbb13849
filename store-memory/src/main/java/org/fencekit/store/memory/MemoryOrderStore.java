package org.fencekit.store.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
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
 *   <li>publish the new immutable order (record and orphans) as the key's value, or keep the old
 *       one: a reader sees either the whole change or none of it;
 *   <li>in the same {@code compute}, once the decision is made, add a mismatched claim's record to
 *       the sorted map of mismatches (immutable, never removed, so the listing reads it as it is).
 * </ol>
 *
 * A claim, complete, fail or extend touches its own order's entry and nothing all orders share (a
 * mismatched claim adds to the mismatches): no counter, lock or sorted index. The stuck, failed and
 * unreconciled-orphan listings therefore read every order once per page, each order as published,
 * and keep those after the cursor that match, sorted, up to the page: exact, at a cost that grows
 * with the number of orders, which a store that forgets everything on restart keeps small.
 *
 * <p>Nothing survives the JVM: use a durable store wherever two processes handle webhooks. Closing
 * the store releases nothing; the orders stay readable.
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

  /** One order as published: an immutable record and its orphans. */
  private record Entry(OrderRecord record, List<OrphanRecord> orphans) {}

  /** An unreconciled orphan's place in its listing: its sort key. */
  private record OrphanKey(Instant recordedAt, OrphanId id) {
    static OrphanKey of(Orphan orphan) {
      return new OrphanKey(orphan.recordedAt(), OrphanId.of(orphan));
    }
  }

  /** An order's place in an order listing. */
  private record OrderKey(Instant at, String sessionId) {}

  /** A listing's candidate: its sort key and what the listing returns. */
  private record Listed<K, V>(K key, V value) {}

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
   * The storage: a map whose {@code compute} is the atomic step, and the mismatches by sort key.
   */
  private static final class MapStorage implements AdminStorage {

    private final ConcurrentHashMap<String, Entry> orders = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<MismatchPosition, Mismatch> mismatches =
        new ConcurrentSkipListMap<>(MISMATCH_ORDER);

    @Override
    public String backend() {
      return "memory";
    }

    @Override
    public <T> T atomically(String operation, String sessionId, Work<T> work) {
      Step<T> step = new Step<>(this, work);
      orders.compute(sessionId, step);
      return step.result;
    }

    /** Adds the step's mismatch, inside its {@code compute}. */
    private void record(Mismatch mismatch) {
      if (mismatch != null) {
        mismatches.putIfAbsent(
            new MismatchPosition(mismatch.recordedAt(), mismatch.id()), mismatch);
      }
    }

    /**
     * The first {@code limit} values, by their keys in {@code order}, of the candidates that {@code
     * candidates} finds in the orders (each order as published), those at or before {@code after}
     * left out ({@code null}: none).
     */
    private <K, V> List<V> first(
        Comparator<K> order,
        K after,
        int limit,
        BiConsumer<Entry, Consumer<Listed<K, V>>> candidates) {
      List<Listed<K, V>> found = new ArrayList<>();
      Consumer<Listed<K, V>> add =
          listed -> {
            if (after == null || order.compare(listed.key(), after) > 0) {
              found.add(listed);
            }
          };
      for (Entry entry : orders.values()) {
        candidates.accept(entry, add);
      }
      found.sort((a, b) -> order.compare(a.key(), b.key()));
      List<V> page = new ArrayList<>(Math.min(limit, found.size()));
      for (int i = 0; i < found.size() && i < limit; i++) {
        page.add(found.get(i).value());
      }
      return page;
    }

    @Override
    public Optional<OrderRecord> read(String sessionId) {
      Entry entry = orders.get(sessionId);
      return entry == null ? Optional.empty() : Optional.of(entry.record());
    }

    @Override
    public List<Orphan> orphans(String sessionId) {
      Entry entry = orders.get(sessionId);
      return entry == null
          ? List.of()
          : entry.orphans().stream().map(OrphanRecord::orphan).toList();
    }

    @Override
    public List<OrphanRecord> unreconciledOrphans(OrphanPosition after, int limit) {
      return first(
          ORPHAN_ORDER,
          after == null ? null : new OrphanKey(after.recordedAt(), after.id()),
          limit,
          (entry, add) -> {
            for (OrphanRecord orphan : entry.orphans()) {
              if (!orphan.reconciled()) {
                add.accept(new Listed<>(OrphanKey.of(orphan.orphan()), orphan));
              }
            }
          });
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
      return find(orders.get(id.sessionId()), id);
    }

    private static Optional<OrphanRecord> find(Entry entry, OrphanId id) {
      return entry == null
          ? Optional.empty()
          : entry.orphans().stream().filter(o -> o.id().equals(id)).findFirst();
    }

    @Override
    public Optional<OrphanRecord> markReconciled(OrphanId id, String note, Instant reconciledAt) {
      List<OrphanRecord> result = new ArrayList<>(1);
      orders.computeIfPresent(
          id.sessionId(),
          (key, entry) -> {
            List<OrphanRecord> orphans = new ArrayList<>(entry.orphans());
            for (int i = 0; i < orphans.size(); i++) {
              OrphanRecord orphan = orphans.get(i);
              if (!orphan.id().equals(id)) {
                continue;
              }
              if (orphan.reconciled()) {
                result.add(orphan);
                return entry;
              }
              OrphanRecord marked = new OrphanRecord(orphan.orphan(), note, reconciledAt);
              orphans.set(i, marked);
              result.add(marked);
              return new Entry(entry.record(), List.copyOf(orphans));
            }
            return entry;
          });
      return result.stream().findFirst();
    }

    @Override
    public List<OrderRecord> stuckOrders(Instant expiredBy, OrderPosition after, int limit) {
      return first(
          ORDER_ORDER,
          after == null ? null : new OrderKey(after.at(), after.sessionId()),
          limit,
          (entry, add) -> {
            OrderRecord record = entry.record();
            if (record.claimId() != null && !record.leaseExpiresAt().isAfter(expiredBy)) {
              add.accept(
                  new Listed<>(new OrderKey(record.leaseExpiresAt(), record.sessionId()), record));
            }
          });
    }

    @Override
    public List<OrderRecord> failedOrders(
        int minFailures, Instant failedBy, OrderPosition after, int limit) {
      return first(
          ORDER_ORDER,
          after == null ? null : new OrderKey(after.at(), after.sessionId()),
          limit,
          (entry, add) -> {
            OrderRecord record = entry.record();
            if (record.status() == OrderStatus.FAILED
                && (record.failures() >= minFailures || !record.failedSince().isAfter(failedBy))) {
              add.accept(
                  new Listed<>(new OrderKey(record.failedSince(), record.sessionId()), record));
            }
          });
    }

    @Override
    public void close() {}
  }

  /**
   * One atomic step: {@link ConcurrentHashMap#compute}'s function and the order inside it, which
   * collects the writes (published only if the work returns) and keeps the work's result, one
   * object per call.
   */
  private static final class Step<T>
      implements BiFunction<String, Entry, Entry>, Storage.LockedOrder {

    private final MapStorage storage;
    private final Storage.Work<T> work;
    private T result;
    private Entry before;
    private OrderRecord record;
    private List<OrphanRecord> orphans;
    private Mismatch mismatch;

    Step(MapStorage storage, Storage.Work<T> work) {
      this.storage = storage;
      this.work = work;
    }

    @Override
    public Entry apply(String sessionId, Entry entry) {
      before = entry;
      record = entry == null ? null : entry.record();
      orphans = entry == null ? List.of() : entry.orphans();
      result = work.run(this);
      storage.record(mismatch);
      return published();
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
      for (OrphanRecord known : orphans) {
        if (known.id().equals(id)) {
          return;
        }
      }
      List<OrphanRecord> more = new ArrayList<>(orphans.size() + 1);
      more.addAll(orphans);
      more.add(OrphanRecord.unreconciled(orphan));
      orphans = List.copyOf(more);
    }

    @Override
    public void addMismatch(Mismatch refused) {
      if (mismatch != null) {
        throw new IllegalStateException(
            "a claim records one mismatch; order '" + refused.sessionId() + "' got a second");
      }
      mismatch = refused;
    }

    Entry published() {
      if (record == null) {
        return null;
      }
      return before != null && before.record() == record && before.orphans() == orphans
          ? before
          : new Entry(record, orphans);
    }
  }
}
