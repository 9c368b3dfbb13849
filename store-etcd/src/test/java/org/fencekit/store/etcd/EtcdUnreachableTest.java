package org.fencekit.store.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A first claim sends its transaction without reading first; when no member accepts a connection,
 * gRPC never opens a stream for it, so the store knows nothing was written and says so. Needs no
 * cluster: the members are loopback ports nobody listens on.
 */
@DisplayName("EtcdOrderStore with no member reachable says nothing was written")
class EtcdUnreachableTest {

  @Test
  @DisplayName("a first claim while every member refuses connections: outcome known, not written")
  void firstClaimNoMember() {
    // below the range the system hands out for port 0: no other test's server is given them
    String endpoints =
        "http://127.0.0.1:"
            + LoopbackPorts.closed()
            + ",http://127.0.0.1:"
            + LoopbackPorts.closed();
    try (EtcdOrderStore store =
        EtcdOrderStore.builder().endpoints(endpoints).timeout(Duration.ofMillis(300)).build()) {
      OrderSnapshot order = new OrderSnapshot("cs_unreachable_1", "esim-1", 1, null, 1000, "EUR");
      StoreUnavailableException thrown =
          assertThrows(
              StoreUnavailableException.class, () -> store.claim(order, Duration.ofSeconds(30)));
      assertFalse(
          thrown.outcomeUnknown(), "no stream was ever opened to a member: " + thrown.getMessage());
      assertEquals("claim", thrown.operation());
    }
  }
}
