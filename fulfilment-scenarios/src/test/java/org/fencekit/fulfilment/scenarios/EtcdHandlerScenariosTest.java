package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.etcd.EtcdOrderStore;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.extension.RegisterExtension;

/** fencekit's own handler through every scenario, on the three-member etcd cluster. */
class EtcdHandlerScenariosTest extends FulfilmentScenarios {

  @RegisterExtension static final TestEtcd.ClassKeys ETCD = TestEtcd.cluster("scenarios");

  @Override
  protected OrderStore newStore(Clock clock) {
    return EtcdOrderStore.builder()
        .endpoints(ETCD.endpoints())
        .keyPrefix(ETCD.prefix())
        .clock(clock)
        .build();
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
