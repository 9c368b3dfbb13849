package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The TCK tests itself: it runs, through the JUnit Platform launcher, against {@link BrokenStore}
 * with each {@link BrokenStore.Break}, and every run must fail, at least on the rules that name the
 * break; the same store without a break must pass every rule; without a peer, the cross-instance
 * rules must be skipped with a message saying how to enable them.
 */
class OrderStoreTckSelfTest {

  /** The rules (display names) each break must fail, the first naming the break. */
  private static final Map<BrokenStore.Break, List<String>> EXPECTED =
      new EnumMap<>(BrokenStore.Break.class);

  static {
    expect(
        BrokenStore.Break.NO_FENCE_ON_FAIL,
        "a stale failure cannot undo a provisioned order",
        "a provisioning call that outlives its lease cannot fail the order another attempt provisioned",
        "a stale write from another instance is fenced off",
        "many threads settling, re-claiming and writing stale on many orders keep every invariant");
    expect(
        BrokenStore.Break.NO_FENCE_ON_COMPLETE,
        "a stale completion cannot overwrite the item the customer was shown",
        "an item bought by a superseded attempt is reported as orphaned, not written over the live one",
        "many threads settling, re-claiming and writing stale on many orders keep every invariant",
        "concurrent histories are linearizable against the reference state machine");
    expect(
        BrokenStore.Break.FENCE_BY_LEASE_TIME,
        "the fence is ownership, not time: the holder of an expired lease that nobody took over still completes",
        "the holder of an expired lease that nobody took over still fails");
    expect(
        BrokenStore.Break.PROVISIONED_CLAIMABLE,
        "a provisioned order is never claimed again, and the claim changes nothing",
        "a stale failure cannot undo a provisioned order");
    expect(
        BrokenStore.Break.SETTLE_KEEPS_CLAIM,
        "a settled order rejects a second write from the same token",
        "complete by the current claim provisions the order, clears the claim and records who settled it");
    expect(
        BrokenStore.Break.NO_ORPHAN,
        "an item bought by a superseded attempt is reported as orphaned, not written over the live one",
        "many threads settling, re-claiming and writing stale on many orders keep every invariant");
    expect(
        BrokenStore.Break.FENCE_NOT_INCREASING,
        "the fence strictly increases with every claim: 1, 2, 3, ...");
    expect(
        BrokenStore.Break.LEASE_END_EXCLUSIVE,
        "a lease is over at exactly leaseExpiresAt: a claim at that instant succeeds");
    expect(
        BrokenStore.Break.ORPHAN_PER_RETRY,
        "a superseded complete is orphaned once per token and provider order id, however often it is retried",
        "concurrent retries of one superseded complete record one orphan");
    expect(
        BrokenStore.Break.REPLAY_SUPERSEDED,
        "a retried complete with the same token and item answers Written and changes nothing, not even updatedAt",
        "a retried fail with the same token and error answers Written and changes nothing");
    expect(
        BrokenStore.Break.SUPERSEDED_TOUCHES_UPDATED_AT,
        "a superseded write changes nothing, not even updatedAt");
    expect(
        BrokenStore.Break.SNAPSHOT_OVERWRITTEN,
        "the first snapshot is kept; a later claim's snapshot does not overwrite it");
    expect(
        BrokenStore.Break.LAST_ERROR_CLEARED,
        "the last error is kept when the order is claimed again",
        "a failed order can be claimed again at once, keeping its last error");
    expect(
        BrokenStore.Break.NONCE_IGNORED,
        "a made-up token with the current fence but another nonce is superseded");
    expect(BrokenStore.Break.NONCE_FROM_SESSION_ID, "every claim gets a new nonce");
    expect(
        BrokenStore.Break.NO_MILLIS_TRUNCATION,
        "lease arithmetic is in whole milliseconds, whatever the clock's precision");
    expect(
        BrokenStore.Break.LEASE_UNCHECKED,
        "claim rejects a lease that is null, not positive, under 1 ms or over 24 h, naming the lease, and writes nothing");
    expect(
        BrokenStore.Break.WRITTEN_ANSWERS_OLD_RECORD,
        "complete by the current claim provisions the order, clears the claim and records who settled it",
        "concurrent histories are linearizable against the reference state machine");
    expect(
        BrokenStore.Break.RACY_CLAIM,
        "concurrent claims for one session yield exactly one owner",
        "concurrent claims across two instances yield exactly one owner");
    expect(
        BrokenStore.Break.RACY_SETTLE,
        "a complete and a fail racing with one token: exactly one lands");
  }

  private static void expect(BrokenStore.Break broken, String... names) {
    EXPECTED.put(broken, List.of(names));
  }

  /** What one launch of a TCK class did, by test display name. */
  private static final class Outcome implements TestExecutionListener {
    final Map<String, TestExecutionResult> tests = new LinkedHashMap<>();
    final Map<String, String> skipped = new LinkedHashMap<>();
    final List<String> brokenContainers = new ArrayList<>();

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
      skipped.put(test.getDisplayName(), reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
      if (test.isTest()) {
        tests.put(test.getDisplayName(), result);
      } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
        brokenContainers.add(test.getDisplayName() + ": " + result);
      }
    }

    Set<String> with(TestExecutionResult.Status status) {
      Set<String> names = new TreeSet<>();
      tests.forEach(
          (name, result) -> {
            if (result.getStatus() == status) {
              names.add(name);
            }
          });
      return names;
    }

    String failures() {
      StringBuilder out = new StringBuilder();
      tests.forEach(
          (name, result) -> {
            if (result.getStatus() == TestExecutionResult.Status.FAILED) {
              out.append("\n  ")
                  .append(name)
                  .append(": ")
                  .append(result.getThrowable().map(String::valueOf).orElse("?"));
            }
          });
      return out.toString();
    }
  }

  private static Outcome launch(Class<?> tck) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request().selectors(selectClass(tck)).build();
    Launcher launcher = LauncherFactory.create();
    Outcome outcome = new Outcome();
    launcher.execute(request, outcome);
    return outcome;
  }

  @AfterEach
  void reset() {
    BrokenStoreTck.breakage = null;
  }

  @Test
  @DisplayName("every break has expected failing rules, and every expected rule exists in the TCK")
  void mappingCoversEveryBreak() {
    assertEquals(
        Set.of(BrokenStore.Break.values()), EXPECTED.keySet(), "a break without expected failures");
    BrokenStoreTck.breakage = null;
    Set<String> names = launch(BrokenStoreTck.class).tests.keySet();
    EXPECTED.forEach(
        (broken, expected) -> {
          for (String name : expected) {
            assertTrue(
                names.contains(name),
                () -> broken + " expects rule '" + name + "' which the TCK does not have");
          }
        });
  }

  @Test
  @DisplayName(
      "the correct store passes every rule, cross-instance ones included, and the TCK has at least 40")
  void correctStorePasses() {
    BrokenStoreTck.breakage = null;
    Outcome outcome = launch(BrokenStoreTck.class);
    assertTrue(
        outcome.tests.size() >= 40, () -> "the TCK ran only " + outcome.tests.size() + " tests");
    assertEquals(
        outcome.tests.keySet(),
        outcome.with(TestExecutionResult.Status.SUCCESSFUL),
        () -> "the correct store must pass every rule; failures:" + outcome.failures());
    assertEquals(Map.of(), outcome.skipped, "nothing may be skipped");
    assertEquals(List.of(), outcome.brokenContainers, "no container may fail");
  }

  @Test
  @DisplayName(
      "without a peer, the cross-instance rules are skipped with a message naming newPeerStore")
  void peerlessSkipsCrossInstanceRules() {
    Outcome outcome = launch(PeerlessStoreTck.class);
    Set<String> aborted = outcome.with(TestExecutionResult.Status.ABORTED);
    assertEquals(
        Set.of(
            "a stale write from another instance is fenced off",
            "an order claimed through one instance is in flight through the other",
            "concurrent claims across two instances yield exactly one owner",
            "an orphan recorded through either instance is listed by both, once",
            "concurrent histories across two instances are linearizable"),
        aborted,
        "the cross-instance rules must be skipped (aborted by an assumption)");
    for (String name : aborted) {
      String reason = outcome.tests.get(name).getThrowable().map(Throwable::getMessage).orElse("");
      assertTrue(
          reason.contains("newPeerStore"), () -> "'" + name + "' was skipped saying: " + reason);
    }
    assertEquals(
        Set.of(),
        outcome.with(TestExecutionResult.Status.FAILED),
        () -> "no rule may fail:" + outcome.failures());
  }

  @Test
  @DisplayName("when the store cannot be made (no server), every rule is skipped and none fails")
  void unreachableStoreSkipsEveryRule() {
    Outcome outcome = launch(UnreachableStoreTck.class);
    assertEquals(
        Set.of(),
        outcome.with(TestExecutionResult.Status.FAILED),
        () -> "a missing server must skip the rules, not fail them:" + outcome.failures());
    assertEquals(
        Set.of(),
        outcome.with(TestExecutionResult.Status.SUCCESSFUL),
        "no rule can pass without a store");
    assertTrue(
        outcome.with(TestExecutionResult.Status.ABORTED).size() >= 40,
        () ->
            "every rule must be skipped, got "
                + outcome.with(TestExecutionResult.Status.ABORTED).size());
  }

  @TestFactory
  @DisplayName("each deliberately broken store fails the TCK on the rules that name its break")
  Stream<DynamicTest> eachBreakFails() {
    return Stream.of(BrokenStore.Break.values())
        .map(
            broken ->
                DynamicTest.dynamicTest(
                    broken + " fails '" + EXPECTED.get(broken).get(0) + "'",
                    () -> {
                      BrokenStoreTck.breakage = broken;
                      Outcome outcome = launch(BrokenStoreTck.class);
                      Set<String> failed = outcome.with(TestExecutionResult.Status.FAILED);
                      assertFalse(
                          failed.isEmpty(), () -> "the TCK passed a store broken by " + broken);
                      for (String name : EXPECTED.get(broken)) {
                        assertTrue(
                            failed.contains(name),
                            () ->
                                "with "
                                    + broken
                                    + " the rule '"
                                    + name
                                    + "' must fail but did not; the failures were:"
                                    + outcome.failures());
                      }
                    }));
  }

  @Test
  @DisplayName(
      "the linearizability check accepts a valid concurrent history and rejects an invalid one")
  void linearizabilityCheckerDecides() {
    // Direct histories, so the checker is proven on both answers independently of any store.
    TestClock clock = new TestClock();
    Linearizability checker = new Linearizability(List.of(), clock, 42, 0);
    String sid = OrderStoreTck.sid("checker");
    OrderSnapshot snapshot = OrderStoreTck.snapshot(sid);
    Duration lease = Duration.ofSeconds(1);
    Instant now = clock.instant();
    ClaimId token = new ClaimId(1, ClaimId.newNonce());
    OrderRecord created =
        new OrderRecord(
            snapshot, OrderStatus.PENDING, null, null, token, now, now.plus(lease), 1, null, now);
    ClaimResult claimed = new ClaimResult.Claimed(token, created);
    ClaimResult inFlight = new ClaimResult.InFlight(created);
    Linearizability.Claim claim = new Linearizability.Claim(snapshot, lease);
    // The InFlight answer returned before the Claimed one was made: valid only because both
    // overlap (InFlight [2..5] overlaps Claimed [1..6]).
    List<Linearizability.Op> valid =
        List.of(
            new Linearizability.Op(0, claim, now, 1, 6, claimed),
            new Linearizability.Op(1, claim, now, 2, 5, inFlight));
    checker.check(0, sid, valid);
    // The same answers without overlap (InFlight returned before the Claimed call began) have
    // no sequential explanation.
    List<Linearizability.Op> invalid =
        List.of(
            new Linearizability.Op(1, claim, now, 1, 2, inFlight),
            new Linearizability.Op(0, claim, now, 3, 4, claimed));
    AssertionError error = assertThrows(AssertionError.class, () -> checker.check(0, sid, invalid));
    assertTrue(error.getMessage().contains("seed 42"), error::getMessage);
    assertTrue(error.getMessage().contains(sid), error::getMessage);
  }
}
