package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import org.fencekit.store.Item;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;

/** A port another process holds is named as taken, with the setting to change. */
class ListenTest {

  @Test
  void aPortAnotherProcessHoldsIsNamedAsTaken() throws Exception {
    try (ServerSocket holder = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        MemoryOrderStore store = new MemoryOrderStore(Clock.systemUTC())) {
      WebhookServer server =
          WebhookServer.builder(store, purchase -> new Item("p", "x"))
              .secret(StripeDeliveries.SECRET)
              .host("127.0.0.1")
              .port(holder.getLocalPort())
              .build();
      String message = assertThrows(IllegalStateException.class, server::start).getMessage();
      assertTrue(message.contains("the port is taken"), message);
      assertTrue(message.contains("set FENCEKIT_PORT to another"), message);
      assertTrue(!message.contains("not an address this machine can bind"), message);
    }
  }
}
