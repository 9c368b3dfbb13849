package org.fencekit.store.etcd;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The stores one test opens on its class's keys of the cluster, on one clock the test moves; each
 * is closed after the test. Register it as an instance field with {@code @RegisterExtension}.
 */
final class EtcdStores implements AfterEachCallback {

  private static final AtomicInteger ORDERS = new AtomicInteger();

  /** The clock every store of the test reads. */
  final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

  private final TestEtcd.ClassKeys etcd;
  private final List<EtcdOrderStore> open = new ArrayList<>();

  EtcdStores(TestEtcd.ClassKeys etcd) {
    this.etcd = etcd;
  }

  /** {@code builder}'s store on the class's members and keys and the test's clock. */
  EtcdOrderStore open(EtcdOrderStore.Builder builder) {
    EtcdOrderStore store =
        builder.endpoints(etcd.endpoints()).keyPrefix(etcd.prefix()).clock(clock).build();
    open.add(store);
    return store;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    open.forEach(EtcdOrderStore::close);
    open.clear();
  }

  /** A new order, its session id starting {@code cs_<label>_}. */
  static OrderSnapshot snapshot(String label) {
    return new OrderSnapshot(
        "cs_" + label + "_" + ORDERS.incrementAndGet() + "_" + System.nanoTime(),
        "esim-1",
        1,
        null,
        1000,
        "EUR");
  }

  /** The token of a claim that must have been granted. */
  static ClaimId claimed(ClaimResult result) {
    return assertInstanceOf(ClaimResult.Claimed.class, result, "the claim").claimId();
  }
}
