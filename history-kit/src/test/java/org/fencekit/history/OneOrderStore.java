package org.fencekit.history;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * The state machine over one order in a field, for the history kit's own tests (the stores depend
 * on the kit, so it cannot test with them). Not safe for many threads.
 */
final class OneOrderStore implements OrderStore {

  private final Clock clock;
  private OrderRecord record;

  OneOrderStore(Clock clock) {
    this.clock = clock;
  }

  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    OrderStateMachine.ClaimDecision decision =
        OrderStateMachine.claim(
            record,
            new ClaimRequest(snapshot, lease),
            OrderStateMachine.now(clock),
            ClaimId.newNonce());
    record = decision.next() == null ? record : decision.next();
    return decision.result();
  }

  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    return write(new WriteRequest.Complete(sessionId, claimId, item));
  }

  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    return write(new WriteRequest.Fail(sessionId, claimId, error));
  }

  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return write(new WriteRequest.Extend(sessionId, claimId, lease));
  }

  private WriteResult write(WriteRequest request) {
    OrderStateMachine.WriteDecision decision =
        OrderStateMachine.write(record, request, OrderStateMachine.now(clock));
    record = decision.next() == null ? record : decision.next();
    return decision.result();
  }

  @Override
  public Optional<OrderRecord> get(String sessionId) {
    return Optional.ofNullable(record);
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    return List.of();
  }

  @Override
  public void close() {}
}
