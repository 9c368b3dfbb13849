package org.fencekit.tck;

import java.util.SplittableRandom;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;

/**
 * The technology compatibility kit: the store contract as a JUnit 5 suite every {@link OrderStore}
 * must pass. The contract ships in this jar ({@code org/fencekit/tck/contract.md}), and so does the
 * listing of the rules ({@link Rules}, {@code org/fencekit/tck/rules.txt}): each rule's id, what it
 * holds a store to, and what to check when it fails. A failure message starts with what was
 * expected and found (the order, the token presented, the current token, the clock and the fields
 * that differ) and ends with the rule's line of the listing.
 *
 * <p>Use it by adding this module with test scope and writing one class:
 *
 * <pre>{@code
 * class MyOrderStoreTckTest extends OrderStoreTck {
 *   @Override
 *   protected OrderStore newStore(TestClock clock) {
 *     return new MyOrderStore(dataSource, clock);
 *   }
 *
 *   @Override   // optional: a second, independent instance over the same data
 *   protected OrderStore newPeerStore(TestClock clock) {
 *     return new MyOrderStore(anotherDataSource, clock);
 *   }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh {@link TestClock} and a fresh store from {@link #newStore}, made on the
 * test's first use of it (after the subclass's own {@code @BeforeEach}); every store the suite
 * obtained is closed after the test, before the subclass's own {@code @AfterEach}. Session ids
 * carry a random per-run prefix and a per-test number, so stores over a shared database never see
 * another test's orders: {@code newStore} need not empty the database. Tests that need two
 * instances over the same data are skipped (not failed) unless {@link #newPeerStore} is overridden.
 *
 * <p>The rules are test methods of rule groups, one file each, siblings over one fixture ({@link
 * TckFixture}: the test's clock and stores, made through this class, and the helpers); each group
 * runs as a {@code @Nested} class of this one, in this order: {@link BasicRules} (first), {@link
 * IncidentRules}, {@link ClaimRules}, {@link SettleRules}, {@link ReplayAndOrphanRules}, {@link
 * InputRules}, {@link ConcurrencyRules}, {@link LinearizabilityRules}, {@link MismatchRules}, and
 * the operator's groups over {@link AdminRules} (for a store that implements {@link
 * org.fencekit.store.OrderStoreAdmin}, skipped otherwise): {@link AdminOrphanListingRules}, {@link
 * AdminReconcileRules}, {@link AdminOrderListingRules}, {@link AdminMismatchRules}, {@link
 * AdminInputRules}. A new group is a class over the fixture and one line here. A rule's method name
 * is its stable id, {@code group_rule}; its display name states the rule.
 *
 * <p>Surefire (3.5.4) reports each group as a test set of its own, named after the nested class
 * ({@code org.fencekit.tck.OrderStoreTck$Basic}, ...), inside the report of the subclass: the
 * build's summary counts every rule and names a failure by the subclass and the rule, while the
 * subclass's own {@code .txt} report and its XML report's {@code tests} attribute say 0. Surefire's
 * summary merges the tests of one top-level class by method name, so give each configuration of one
 * backend its own top-level test class (subclasses of one abstract class that extends this one),
 * not a {@code @Nested} class of one suite.
 *
 * <p>The concurrency rules use real threads released together; their sizes are protected methods a
 * subclass may shrink or grow. The randomized rules print their seed on failure; run again with
 * {@code -Dfencekit.tck.seed=<seed>} to make the same choices (the interleaving of threads is the
 * scheduler's and cannot be replayed).
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
public abstract class OrderStoreTck {

  /** For subclasses. */
  protected OrderStoreTck() {}

  /**
   * A new store, empty or holding only other tests' orders, whose leases run on {@code clock}.
   * Called once per test, on the test's first use of the store (so after the subclass's own
   * {@code @BeforeEach} methods); the suite closes it after the test.
   *
   * @param clock the test's clock; the store must read time only from it
   * @throws Exception if the store cannot be built (the test then errors)
   */
  protected abstract OrderStore newStore(TestClock clock) throws Exception;

  /**
   * A second, independent instance over the same data as the last {@link #newStore} (another pool,
   * connection or client), on the same {@code clock}; or {@code null} if the store cannot share
   * data across instances, which skips the cross-instance tests. The suite closes it after the
   * test.
   *
   * @param clock the same clock the first store was given
   * @throws Exception if the store cannot be built (the test then errors)
   */
  protected OrderStore newPeerStore(TestClock clock) throws Exception {
    return null;
  }

  /** Threads that race to claim one order in the claim races. Default 16. */
  protected int raceThreads() {
    return 16;
  }

  /** Threads of the many-orders stress test. Default 8. */
  protected int stressThreads() {
    return 8;
  }

  /** Orders of the many-orders stress test; about six calls are made per order. Default 240. */
  protected int stressOrders() {
    return 240;
  }

  /**
   * Randomized histories the linearizability tests check (each: 4 threads, 3 orders, 6 rounds of 3
   * calls per thread). Default 4.
   */
  protected int linearizabilityHistories() {
    return 4;
  }

  /**
   * How many orders {@code concurrency_completeFailRace} races settles on; fewer for a slow
   * backend.
   */
  protected int settleRaceRounds() {
    return 48;
  }

  /**
   * How many orphans {@code admin_concurrentMarksEveryOrphan} races marks on, one after another;
   * fewer for a slow backend.
   */
  protected int markRaceRounds() {
    return 48;
  }

  /**
   * How many of the 17 layout characters (key separators, pattern and escape characters, quotes,
   * non-ASCII letters) the two layout rules put in ids, three orders each, drawn at random with
   * {@link #seed()} when fewer than all; fewer for a slow backend. Default all 17.
   */
  protected int layoutCharacters() {
    return InputRules.LAYOUT_CHARACTERS.size();
  }

  /**
   * The seed of the randomized tests: the system property {@code fencekit.tck.seed} if set, else a
   * new random one. Printed on failure.
   */
  protected long seed() {
    Long fixed = Long.getLong("fencekit.tck.seed");
    return fixed != null ? fixed : new SplittableRandom().nextLong();
  }

  // The rule groups, in the order of the listing.

  @Nested
  @Order(1)
  class Basic extends BasicRules {}

  @Nested
  @Order(2)
  class Incident extends IncidentRules {}

  @Nested
  @Order(3)
  class Claim extends ClaimRules {}

  @Nested
  @Order(4)
  class Settle extends SettleRules {}

  @Nested
  @Order(5)
  class ReplayAndOrphan extends ReplayAndOrphanRules {}

  @Nested
  @Order(6)
  class Input extends InputRules {}

  @Nested
  @Order(7)
  class Concurrency extends ConcurrencyRules {}

  @Nested
  @Order(8)
  class Linearizable extends LinearizabilityRules {}

  @Nested
  @Order(9)
  class Mismatches extends MismatchRules {}

  @Nested
  @Order(10)
  class AdminOrphanListing extends AdminOrphanListingRules {}

  @Nested
  @Order(11)
  class AdminReconcile extends AdminReconcileRules {}

  @Nested
  @Order(12)
  class AdminOrderListing extends AdminOrderListingRules {}

  @Nested
  @Order(13)
  class AdminMismatch extends AdminMismatchRules {}

  @Nested
  @Order(14)
  class AdminInput extends AdminInputRules {}
}
