package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
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

  /** The rules (ids: method names) each break must fail, the first naming the break. */
  private static final Map<BrokenStore.Break, List<String>> EXPECTED =
      new EnumMap<>(BrokenStore.Break.class);

  static {
    expect(
        BrokenStore.Break.NO_FENCE_ON_FAIL,
        "incident_staleFailCannotUndoProvisioned",
        "incident_outlivedLeaseCannotFailProvisioned",
        "incident_staleWriteFromAnotherInstance",
        "concurrency_stress");
    expect(
        BrokenStore.Break.NO_FENCE_ON_COMPLETE,
        "incident_staleCompleteCannotOverwriteItem",
        "incident_supersededPurchaseOrphaned",
        "concurrency_stress",
        "linearizability_oneInstance");
    expect(
        BrokenStore.Break.FENCE_BY_LEASE_TIME,
        "settle_expiredHolderStillCompletes",
        "settle_expiredHolderStillFails");
    expect(
        BrokenStore.Break.PROVISIONED_CLAIMABLE,
        "claim_provisionedNeverClaimedAgain",
        "incident_staleFailCannotUndoProvisioned");
    expect(
        BrokenStore.Break.SETTLE_KEEPS_CLAIM,
        "incident_settledOrderRejectsSecondWrite",
        "settle_completeByCurrentClaim");
    expect(
        BrokenStore.Break.NO_ORPHAN, "incident_supersededPurchaseOrphaned", "concurrency_stress");
    expect(BrokenStore.Break.FENCE_NOT_INCREASING, "claim_fenceIncreases");
    expect(BrokenStore.Break.LEASE_END_EXCLUSIVE, "basic_leaseOverAtExpiry");
    expect(
        BrokenStore.Break.ORPHAN_PER_RETRY, "orphan_oncePerPurchase", "concurrency_orphanRetries");
    expect(BrokenStore.Break.REPLAY_SUPERSEDED, "replay_complete", "replay_fail");
    expect(BrokenStore.Break.SUPERSEDED_TOUCHES_UPDATED_AT, "settle_supersededChangesNothing");
    expect(BrokenStore.Break.SNAPSHOT_OVERWRITTEN, "claim_firstSnapshotKept");
    expect(
        BrokenStore.Break.LAST_ERROR_CLEARED,
        "claim_lastErrorKept",
        "claim_failedOrderClaimedAgain");
    expect(BrokenStore.Break.NONCE_IGNORED, "settle_currentFenceOtherNonce");
    expect(BrokenStore.Break.NONCE_FROM_SESSION_ID, "claim_newNonceEachClaim");
    expect(BrokenStore.Break.NO_MILLIS_TRUNCATION, "basic_millisecondPrecision");
    expect(BrokenStore.Break.LEASE_UNCHECKED, "input_claimBadLease");
    expect(
        BrokenStore.Break.WRITTEN_ANSWERS_OLD_RECORD,
        "settle_completeByCurrentClaim",
        "linearizability_oneInstance");
    expect(
        BrokenStore.Break.RACY_CLAIM, "incident_concurrentClaimsOneOwner", "peer_concurrentClaims");
    expect(BrokenStore.Break.FENCE_IGNORED, "settle_currentNonceOtherFence");
    expect(
        BrokenStore.Break.NEWER_FENCE_ACCEPTED,
        "settle_madeUpEdgeTokens",
        "settle_currentNonceOtherFence");
    expect(BrokenStore.Break.LEASE_LIVE_BY_SYSTEM_CLOCK, "basic_leaseUsesStoreClock");
    expect(BrokenStore.Break.RACY_SETTLE, "concurrency_completeFailRace");
    expect(BrokenStore.Break.CURSOR_BY_TIME_ONLY, "admin_pagesNeitherSkipNorRepeat");
    expect(BrokenStore.Break.SNAPSHOT_PAGING, "admin_orphanRecordedWhileReading");
    expect(BrokenStore.Break.OFFSET_PAGING, "admin_reconcileWhileReadingSkipsNothing");
    expect(BrokenStore.Break.RACY_RECONCILE, "admin_concurrentMarksRecordOne");
    expect(
        BrokenStore.Break.REMARK_OVERWRITES,
        "admin_otherNoteAnswersRecorded",
        "admin_markIdempotent");
    expect(BrokenStore.Break.RECONCILED_STILL_LISTED, "admin_reconciledLeavesList");
    expect(BrokenStore.Break.LOOKUP_IGNORES_PROVIDER_ORDER, "admin_lookupByIdentity");
    expect(BrokenStore.Break.STUCK_BY_CLAIMED_AT, "admin_stuckOrders");
    expect(
        BrokenStore.Break.FAILURES_RESET_ON_CLAIM,
        "admin_failedOrders",
        "claim_failedOrderClaimedAgain");
    expect(BrokenStore.Break.ADMIN_INPUT_UNCHECKED, "admin_badArguments");
    expect(BrokenStore.Break.ORPHANS_BY_IDENTITY, "admin_orphansListedOldestFirst");
    expect(
        BrokenStore.Break.ORPHANS_IN_RECORDING_ORDER,
        "admin_orphansListedOldestFirst",
        "admin_orphanTokenInSortKey",
        "admin_hugeFenceOrphansPaged");
    expect(
        BrokenStore.Break.ORPHAN_KEY_WITHOUT_TOKEN,
        "admin_orphanTokenInSortKey",
        "admin_hugeFenceOrphansPaged");
    expect(BrokenStore.Break.FENCE_AS_DOUBLE, "admin_hugeFenceOrphansPaged");
    expect(BrokenStore.Break.STUCK_BY_SESSION_ID, "admin_stuckListedOldestLeaseFirst");
    expect(BrokenStore.Break.FAILED_BY_SESSION_ID, "admin_failedListedLongestFailingFirst");
    expect(BrokenStore.Break.FAILED_BY_LAST_FAILURE, "admin_failedListedLongestFailingFirst");
    expect(BrokenStore.Break.RACY_RECONCILE_NARROW, "admin_concurrentMarksEveryOrphan");
    expect(BrokenStore.Break.ORDER_CURSORS_SHARED, "admin_cursorOfAnotherListingRefused");
    expect(BrokenStore.Break.FAILED_CURSOR_UNCHECKED, "admin_cursorOfAnotherListingRefused");
    expect(BrokenStore.Break.FENCE_AS_INT, "settle_fenceAs64Bits", "admin_orphanFencesAs64Bits");
    expect(
        BrokenStore.Break.ORDER_OFFSET_PAGING,
        "admin_stuckListedOnceWhileOrdersMove",
        "admin_failedListedOnceWhileOrdersMove");
    expect(BrokenStore.Break.CURSOR_SPLITS_ON_COLON, "admin_layoutCharactersListed");
    expect(BrokenStore.Break.ORPHANS_BY_KEY_PREFIX, "value_layoutCharactersInIds");
    expect(BrokenStore.Break.NOTE_LIMIT_OFF_BY_ONE, "admin_exactLimits");
    expect(BrokenStore.Break.EXTEND_KEEPS_LATER_END, "settle_extendShorterLease");
    expect(BrokenStore.Break.RECONCILE_STAMPS_OWN_CLOCK, "admin_reconcileStampsGivenInstant");
    expect(BrokenStore.Break.RECONCILE_MARKS_TOKEN, "admin_reconcileMarksOnlyNamed");
    expect(BrokenStore.Break.PAGE_SIZE_PLUS_ONE, "admin_pageHoldsAtMostPageSize");
    expect(BrokenStore.Break.AGES_BY_SYSTEM_CLOCK, "admin_agesOnStoreClock");
    expect(
        BrokenStore.Break.MISMATCH_IGNORES_PRODUCT,
        "mismatch_eachFieldOnEveryStatus",
        "mismatch_everyDifferingFieldNamed",
        "mismatch_concurrentCartsOneOrder");
    expect(
        BrokenStore.Break.MISMATCH_IGNORES_QUANTITY,
        "mismatch_eachFieldOnEveryStatus",
        "mismatch_everyDifferingFieldNamed");
    expect(
        BrokenStore.Break.MISMATCH_IGNORES_AMOUNT,
        "mismatch_eachFieldOnEveryStatus",
        "mismatch_everyDifferingFieldNamed",
        "mismatch_concurrentCartsOneOrder");
    expect(
        BrokenStore.Break.MISMATCH_IGNORES_CURRENCY,
        "mismatch_eachFieldOnEveryStatus",
        "mismatch_everyDifferingFieldNamed");
    expect(
        BrokenStore.Break.CURRENCY_CASE_SENSITIVE,
        "mismatch_emailAndCurrencyCaseAreSameOrder",
        "mismatch_everyDifferingFieldNamed",
        "mismatch_concurrentCartsOneOrder");
    expect(BrokenStore.Break.EMAIL_COMPARED, "mismatch_emailAndCurrencyCaseAreSameOrder");
    expect(
        BrokenStore.Break.MISMATCH_NOT_DECIDED,
        "mismatch_eachFieldOnEveryStatus",
        "mismatch_everyDifferingFieldNamed",
        "mismatch_concurrentCartsOneOrder",
        "admin_mismatchesListedOncePerClaim");
    expect(BrokenStore.Break.MISMATCH_ONLY_WHEN_CLAIMABLE, "mismatch_eachFieldOnEveryStatus");
    expect(BrokenStore.Break.MISMATCH_AFTER_WRITE, "mismatch_eachFieldOnEveryStatus");
    expect(BrokenStore.Break.MISMATCH_NOT_RECORDED, "admin_mismatchesListedOncePerClaim");
    expect(BrokenStore.Break.MISMATCH_ROW_PER_ORDER, "admin_mismatchesListedOncePerClaim");
    expect(BrokenStore.Break.MISMATCH_CURSOR_BY_TIME_ONLY, "admin_mismatchesListedOncePerClaim");
    expect(BrokenStore.Break.MISMATCHES_BY_SESSION_ID, "admin_mismatchesListedOncePerClaim");
  }

  private static void expect(BrokenStore.Break broken, String... names) {
    EXPECTED.put(broken, List.of(names));
  }

  /** What one launch of a TCK class did, by rule id (the test method's name). */
  private static final class Outcome implements TestExecutionListener {
    final Map<String, TestExecutionResult> tests = new LinkedHashMap<>();
    final Map<String, String> skipped = new LinkedHashMap<>();
    final List<String> brokenContainers = new ArrayList<>();

    private static String id(TestIdentifier test) {
      return test.getSource()
          .filter(MethodSource.class::isInstance)
          .map(source -> ((MethodSource) source).getMethodName())
          .orElse(test.getDisplayName());
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
      skipped.put(id(test), reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
      if (test.isTest()) {
        tests.put(id(test), result);
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
    return launch(tck, descriptor -> FilterResult.included("every rule"));
  }

  /** Runs only the rules {@code ids} of {@code tck}, wherever its nested groups declare them. */
  private static Outcome launch(Class<?> tck, List<String> ids) {
    return launch(
        tck,
        descriptor ->
            FilterResult.includedIf(
                descriptor
                    .getSource()
                    .filter(MethodSource.class::isInstance)
                    .map(source -> ids.contains(((MethodSource) source).getMethodName()))
                    .orElse(true)));
  }

  private static Outcome launch(Class<?> tck, PostDiscoveryFilter rules) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(tck))
            .filters(rules)
            .build();
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
    assertEquals(
        Rules.all().stream().map(Rules.Rule::id).toList(),
        List.copyOf(outcome.tests.keySet()),
        "the rules run in the listing's order, basic rules first");
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
            "incident_staleWriteFromAnotherInstance",
            "peer_claimInFlightOnOther",
            "peer_concurrentClaims",
            "peer_orphanListedByBoth",
            "linearizability_twoInstances"),
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

  /**
   * How many times each broken store runs the rules that name its break; every run must fail every
   * one of them ({@code -Dfencekit.tck.selfTestRuns=N} to change it). Only those rules run: what a
   * break does to the others is not asserted, and a racy break's window makes each of its calls
   * wait, so the whole TCK per break cost the build minutes and proved nothing more.
   */
  private static final int RUNS = Integer.getInteger("fencekit.tck.selfTestRuns", 5);

  /**
   * The breaks {@link #eachBreakFails} runs: all, or those whose names start with one of the
   * comma-separated prefixes of {@code -Dfencekit.tck.selfTestBreaks} (to iterate on a few).
   */
  private static boolean selected(BrokenStore.Break broken) {
    String only = System.getProperty("fencekit.tck.selfTestBreaks", "");
    return only.isBlank() || Stream.of(only.split(",")).anyMatch(p -> broken.name().startsWith(p));
  }

  @TestFactory
  @DisplayName("each deliberately broken store fails the rules that name its break, on every run")
  Stream<DynamicTest> eachBreakFails() {
    return Stream.of(BrokenStore.Break.values())
        .filter(OrderStoreTckSelfTest::selected)
        .map(
            broken ->
                DynamicTest.dynamicTest(
                    broken + " fails " + EXPECTED.get(broken).get(0) + " on " + RUNS + " runs",
                    () -> {
                      BrokenStoreTck.breakage = broken;
                      for (int run = 1; run <= RUNS; run++) {
                        Outcome outcome = launch(BrokenStoreTck.class, EXPECTED.get(broken));
                        Set<String> failed = outcome.with(TestExecutionResult.Status.FAILED);
                        String named = EXPECTED.get(broken).get(0);
                        String message =
                            outcome
                                .tests
                                .get(named)
                                .getThrowable()
                                .map(Throwable::getMessage)
                                .orElse("");
                        assertTrue(
                            message.contains("rule " + named + " (")
                                && message.contains("; if this fails, check "),
                            () -> named + "'s failure does not carry its listing line: " + message);
                        for (String id : EXPECTED.get(broken)) {
                          int which = run;
                          assertTrue(
                              failed.contains(id),
                              () ->
                                  "with "
                                      + broken
                                      + " the rule "
                                      + id
                                      + " must fail on every run but passed on run "
                                      + which
                                      + " of "
                                      + RUNS
                                      + "; the failures were:"
                                      + outcome.failures());
                        }
                      }
                    }));
  }

  @Test
  @DisplayName(
      "a failure names only the fields that differ, and shows the tokens, the lease and the clock")
  void failureMessagesNameTheDifference() {
    BrokenStoreTck.breakage = BrokenStore.Break.SUPERSEDED_TOUCHES_UPDATED_AT;
    Outcome outcome =
        launch(
            BrokenStoreTck.class,
            List.of("settle_supersededChangesNothing", "settle_supersededExtendRejected"));
    for (String id : outcome.tests.keySet()) {
      String message =
          outcome.tests.get(id).getThrowable().map(Throwable::getMessage).orElse("(passed)");
      assertTrue(message.contains("updatedAt: expected "), () -> id + ": " + message);
      assertFalse(
          message.contains("status: expected"),
          () -> id + " names a field that did not change: " + message);
      assertTrue(message.contains("token presented "), () -> id + ": " + message);
      assertTrue(message.contains("current token "), () -> id + ": " + message);
      assertTrue(message.contains(", its lease "), () -> id + ": " + message);
      assertTrue(message.contains(" at the clock's "), () -> id + ": " + message);
    }
    assertEquals(2, outcome.tests.size());
  }
}
