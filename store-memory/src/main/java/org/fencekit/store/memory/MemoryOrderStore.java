package org.fencekit.store.memory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.fencekit.store.FencedOrderStore;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStorage;
import org.fencekit.store.Orphan;

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
 *   <li>read the order and the clock, decide with {@link org.fencekit.store.OrderStateMachine};
 *   <li>publish the new immutable order (record and orphans) as the key's value, or keep the old
 *       one: a reader sees either the whole change or none of it.
 * </ol>
 *
 * Nothing survives the JVM: use a durable store wherever two processes handle webhooks.
 */
public final class MemoryOrderStore extends FencedOrderStore {

  /** A store whose leases run on {@code clock}. */
  public MemoryOrderStore(Clock clock) {
    super(new MapStorage(), clock);
  }

  /** A store on the system clock. */
  public MemoryOrderStore() {
    this(Clock.systemUTC());
  }

  /** Does nothing: there is nothing to release. The orders stay readable. */
  @Override
  public void close() {
    super.close();
  }

  /** One order as published: an immutable record and its orphans. */
  private record Entry(OrderRecord record, List<Orphan> orphans) {}

  /** The storage: a map whose {@code compute} is the atomic step. */
  private static final class MapStorage implements OrderStorage {

    private final ConcurrentHashMap<String, Entry> orders = new ConcurrentHashMap<>();

    @Override
    public String backend() {
      return "memory";
    }

    @Override
    public <T> T atomically(String operation, String sessionId, Work<T> work) {
      Step<T> step = new Step<>(work);
      orders.compute(sessionId, step);
      return step.result;
    }

    @Override
    public Optional<OrderRecord> read(String sessionId) {
      Entry entry = orders.get(sessionId);
      return entry == null ? Optional.empty() : Optional.of(entry.record());
    }

    @Override
    public List<Orphan> orphans(String sessionId) {
      Entry entry = orders.get(sessionId);
      return entry == null ? List.of() : entry.orphans();
    }

    @Override
    public void close() {}
  }

  /**
   * One atomic step as {@link ConcurrentHashMap#compute}'s function, which keeps the work's result:
   * one object per call where a capturing lambda and a result list took three.
   */
  private static final class Step<T> implements BiFunction<String, Entry, Entry> {

    private final OrderStorage.Work<T> work;
    private T result;

    Step(OrderStorage.Work<T> work) {
      this.work = work;
    }

    @Override
    public Entry apply(String sessionId, Entry entry) {
      MapOrder order = new MapOrder(entry);
      result = work.run(order);
      return order.published();
    }
  }

  /** The order inside one atomic step: collects the writes, published only if the work returns. */
  private static final class MapOrder implements OrderStorage.Order {

    private final Entry before;
    private OrderRecord record;
    private List<Orphan> orphans;

    MapOrder(Entry before) {
      this.before = before;
      this.record = before == null ? null : before.record();
      this.orphans = before == null ? List.of() : before.orphans();
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
      for (Orphan known : orphans) {
        if (known.claimId().equals(orphan.claimId())
            && known.item().providerOrderId().equals(orphan.item().providerOrderId())) {
          return;
        }
      }
      List<Orphan> more = new ArrayList<>(orphans.size() + 1);
      more.addAll(orphans);
      more.add(orphan);
      orphans = List.copyOf(more);
    }

    Entry published() {
      if (record == null) {
        return null;
      }
      if (before != null && before.record() == record && before.orphans() == orphans) {
        return before;
      }
      return new Entry(record, orphans);
    }
  }
}
