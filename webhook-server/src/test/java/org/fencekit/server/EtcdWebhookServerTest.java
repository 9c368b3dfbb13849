package org.fencekit.server;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.spec.StoreSpec;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server over HTTP on the three-member etcd cluster, its store opened from an etcd:// URL. */
class EtcdWebhookServerTest extends WebhookServerContract {

  @RegisterExtension static final TestEtcd.ClassKeys ETCD = TestEtcd.cluster("webhook");

  /**
   * The store, warmed by one read: jetcd connects and loads gRPC on its first call (seconds on a
   * loaded 2-core machine), which a server that has run for a while has paid; the 32-delivery race
   * would otherwise spend the 5 s queue time of its last 8 deliveries on it.
   */
  @Override
  OrderStore newStore(Clock clock) {
    OrderStore store =
        StoreSpec.parse(
                "FENCEKIT_STORE",
                "etcd://" + ETCD.endpoints().replace("http://", "") + "/" + ETCD.prefix())
            .open(clock);
    store.get("cs_warm_up");
    return store;
  }
}
