package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mysql.cj.jdbc.MysqlDataSource;
import java.time.Instant;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.FastSettle;
import org.fencekit.store.jdbc.JdbcStorage;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fast path's complete statement on its own: it writes for the current owner only, exactly the
 * state machine's record, and nothing for a superseded token, a replay or an unknown order; a
 * statement drifted from the machine is caught, not answered.
 */
class MysqlFastPathTest extends MysqlStoreTestSupport {

  private MysqlStorage storage(Sql sql) {
    MysqlDataSource dataSource = new MysqlDataSource();
    dataSource.setURL(database.jdbcUrl());
    return track(
        new MysqlStorage(
            new JdbcStorage.Connections("mysql", dataSource, null, 30, "test", Credentials.NONE),
            sql,
            false));
  }

  @Test
  @DisplayName(
      "the complete statement writes for the current owner only, the state machine's record; nothing for a superseded token, a replay or an unknown order")
  void completeWritesForTheOwnerOnly() {
    MysqlOrderStore store = store(pooled().singleStatementFastPath(false));
    MysqlStorage fast = storage(Sql.forTables("fencekit_orders", "fencekit_orphans"));
    String sid = sid("fast");
    ClaimId claimId = claimed(store, sid);
    Instant now = OrderStateMachine.now(clock);

    WriteRequest.Complete stranger =
        new WriteRequest.Complete(sid, new ClaimId(claimId.fence(), ClaimId.newNonce()), ITEM);
    assertEquals(Optional.empty(), fast.completeFast(stranger, now));
    WriteRequest.Complete otherFence =
        new WriteRequest.Complete(sid, new ClaimId(claimId.fence() + 1, claimId.nonce()), ITEM);
    assertEquals(Optional.empty(), fast.completeFast(otherFence, now));
    assertEquals(
        Optional.empty(),
        fast.completeFast(new WriteRequest.Complete(sid("unknown"), claimId, ITEM), now));
    assertEquals(OrderStatus.PENDING, record(store, sid).status(), "nothing written");

    WriteRequest.Complete owner = new WriteRequest.Complete(sid, claimId, ITEM);
    OrderRecord written = fast.completeFast(owner, now).orElseThrow();
    WriteResult decided = FastSettle.decided("mysql", written, owner, now);
    assertEquals(new WriteResult.Written(written), decided);
    assertEquals(written, record(store, sid));
    assertEquals(claimId, written.settledBy());

    assertEquals(Optional.empty(), fast.completeFast(owner, now), "a replay writes nothing");
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
  }

  @Test
  @DisplayName(
      "a complete statement that writes something other than the state machine's record is caught, not answered")
  void driftIsCaught() {
    MysqlOrderStore store = store(pooled());
    String sid = sid("drift");
    ClaimId claimId = claimed(store, sid);
    Sql real = Sql.forTables("fencekit_orders", "fencekit_orphans");
    assertTrue(real.completeFast().contains("item_payload = ?"), real.completeFast());
    Sql drifted =
        new Sql(
            real.templates(),
            real.probe(),
            real.lockMigrations(),
            real.releaseMigrations(),
            real.selectOrder(),
            real.insertOrder(),
            real.completeFast()
                .replace("item_payload = ?", "item_payload = CONCAT('drifted: ', ?)"),
            real.selectOrphans(),
            real.steps(),
            real.lockOrderServerTime(),
            real.readCommitted(),
            real.admin());
    WriteRequest.Complete owner =
        new WriteRequest.Complete(sid, claimId, new Item("prov-1", "code"));
    Instant now = OrderStateMachine.now(clock);
    OrderRecord written = storage(drifted).completeFast(owner, now).orElseThrow();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> FastSettle.decided("mysql", written, owner, now));
    assertTrue(e.getMessage().contains("disagree"), e.getMessage());
    assertTrue(e.getMessage().contains("drifted: code"), e.getMessage());
  }
}
