package org.fencekit.store.etcd;

import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole TCK, admin rules included, on the three-member cluster; the peer store is a second
 * client of its own.
 */
@DisplayName("EtcdOrderStore passes the TCK on a three-member cluster")
class EtcdTckTest extends OrderStoreTck {

  @RegisterExtension static final TestEtcd.ClassKeys etcd = TestEtcd.cluster("tck");

  @Override
  protected OrderStore newStore(TestClock clock) {
    return EtcdOrderStore.builder()
        .endpoints(etcd.endpoints())
        .keyPrefix(etcd.prefix())
        .clock(clock)
        .build();
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return newStore(clock);
  }
}
