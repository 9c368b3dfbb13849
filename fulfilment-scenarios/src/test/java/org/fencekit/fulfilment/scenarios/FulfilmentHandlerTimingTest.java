package org.fencekit.fulfilment.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;

/**
 * fencekit's handler's own timing rules, driven through the kit's clock and scheduler: the provider
 * timeout, the cut-off before a lease the heartbeats could not renew, a superseded heartbeat, and
 * results that arrive after the handler stopped waiting.
 */
class FulfilmentHandlerTimingTest {

  private final ManualClock clock = new ManualClock(ScenarioRun.START);
  private final MemoryOrderStore store = new MemoryOrderStore(clock);

  private ScenarioRun newRun(String id) {
    return new ScenarioRun(
        id,
        context -> HandlerUnderTest.of(context.fulfilmentHandler().build()),
        store,
        clock,
        Duration.ofSeconds(10));
  }

  @Test
  void aCallThatOutlivesTheProviderTimeoutIsFailedAndItsLatePurchaseStillRecorded() {
    try (ScenarioRun run = newRun("providerTimeout")) {
      Instance a = run.instance("A");
      run.provider().next(Behaviour.hang());
      Delivery slow = a.deliver(run.paid("order"));
      run.provider().awaitCall(1);
      run.advance(ScenarioRun.PROVIDER_TIMEOUT.minusSeconds(1));
      assertFalse(slow.answered(), "cut off before the provider timeout");
      run.advance(Duration.ofSeconds(1));
      run.expect().answer(slow, 500);
      run.expect().status("order", OrderStatus.FAILED);
      run.expect().lastErrorContains("order", "no answer within the provider timeout");
      run.expect().lastErrorContains("order", "same idempotency key");
      run.provider().release(1); // the provider answers after all
      run.expect().reported("order", 1);
      Delivery retry = a.deliverAndAwait(run.paid("order"));
      run.expect().answer(retry, 200);
      run.expect().purchases("order", 1);
      run.expect().itemIsPurchase("order", 1);
    }
  }

  @Test
  void heartbeatsThatCannotReachTheStoreCutTheCallOffBeforeTheLeaseRunsOut() {
    try (ScenarioRun run = newRun("cutOffBeforeLease")) {
      Instance a = run.instance("A");
      Instance b = run.instance("B");
      run.provider().next(Behaviour.hang());
      Delivery slow = a.deliver(run.paid("order"));
      run.provider().awaitCall(1);
      a.cutOffFromStore();
      run.advance(ScenarioRun.LEASE.minus(ScenarioRun.HEARTBEAT).minusMillis(1));
      assertFalse(slow.answered(), "still within the lease renewed last");
      run.advance(Duration.ofMillis(1));
      // answered while the clock stands one heartbeat before the lease runs out: it was cut off
      run.expect().answer(slow, 503); // its fail cannot reach the store either
      Delivery meanwhile = b.deliverAndAwait(run.paid("order"));
      run.expect().answer(meanwhile, 409);
      a.reconnect();
      run.provider().release(1); // the call answers late; nobody took over: it is recorded
      run.expect().status("order", OrderStatus.PROVISIONED);
      run.expect().itemIsPurchase("order", 1);
      run.expect().reported("order");
      run.expect().claimsGranted("order", 1);
    }
  }

  @Test
  void aSupersededHeartbeatTellsTheCallItLostTheOrderAndInterruptsIt() throws Exception {
    try (ScenarioRun run = newRun("supersededHeartbeat")) {
      Instance a = run.instance("A");
      Instance b = run.instance("B");
      run.provider().next(Behaviour.hang());
      a.deliver(run.paid("order"));
      FakeProvider.ProviderCall call = run.provider().awaitCall(1);
      assertTrue(call.purchase().ownership().owned());
      a.freeze();
      run.advance(ScenarioRun.LEASE);
      run.expect().answer(b.deliverAndAwait(run.paid("order")), 200);
      a.thaw();
      assertFalse(call.purchase().ownership().owned(), "the heartbeat learned it was superseded");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!call.interrupted() && System.nanoTime() < deadline) {
        Thread.sleep(2); // the interrupted thread notes it when it wakes; not a lease
      }
      assertTrue(call.interrupted(), "the provider call's thread was interrupted");
      assertEquals(1, call.purchase().ownership().claimId().fence());
      run.provider().release(1);
      OrderRecord record = run.record("order").orElseThrow();
      assertEquals(2, record.fence());
    }
  }
}
