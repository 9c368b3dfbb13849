package org.fencekit.testsupport;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Says at the end of a test run (in Maven: once per module) which servers were missing, how many
 * tests each one's absence skipped, and the variable that enables it. The JUnit Platform finds this
 * listener by ServiceLoader wherever test-support is on the test class path; it prints nothing when
 * nothing was skipped for want of a server.
 *
 * <p>It also warns when Maven Surefire's summary will undercount the run: Surefire counts tests by
 * top-level class and method name (apache/maven-surefire#3264), so tests of two {@code @Nested}
 * classes with the same method name (two configurations of one inherited suite) are counted once
 * when one of them is skipped or fails. Give each configuration its own top-level test class.
 */
public final class SkipReport implements TestExecutionListener {

  private static final String MARK = "[fencekit] ";

  private final Supplier<PrintStream> out;
  private final Map<String, Missing> missing = new TreeMap<>();
  private final Map<String, List<TestExecutionResult.Status>> bySurefireName =
      new LinkedHashMap<>();
  private TestPlan plan;
  private int tests;

  /** The listener ServiceLoader makes; it prints to {@code System.out}. */
  public SkipReport() {
    this(() -> System.out);
  }

  SkipReport(Supplier<PrintStream> out) {
    this.out = out;
  }

  /** Forgets any earlier plan's results. */
  @Override
  public synchronized void testPlanExecutionStarted(TestPlan testPlan) {
    plan = testPlan;
    missing.clear();
    bySurefireName.clear();
    tests = 0;
  }

  /** Counts a disabled test as a test Surefire shows skipped. */
  @Override
  public synchronized void executionSkipped(TestIdentifier identifier, String reason) {
    if (identifier.isTest()) {
      record(identifier, TestExecutionResult.Status.ABORTED);
    }
  }

  /** Counts the test, and the tests a missing server skipped. */
  @Override
  public synchronized void executionFinished(
      TestIdentifier identifier, TestExecutionResult result) {
    if (identifier.isTest()) {
      record(identifier, result.getStatus());
    }
    Optional<Throwable> thrown = result.getThrowable();
    if (result.getStatus() == TestExecutionResult.Status.ABORTED
        && thrown.isPresent()
        && thrown.get() instanceof BackendSkipped skipped) {
      int count =
          identifier.isTest()
              ? 1
              : (int)
                  plan.getDescendants(identifier).stream().filter(TestIdentifier::isTest).count();
      Backend backend = skipped.backend();
      missing.computeIfAbsent(backend.name(), name -> new Missing(backend.howToEnable())).tests +=
          count;
      if (!identifier.isTest()) {
        tests += count; // a class skipped in @BeforeAll reports none of its tests
      }
    }
  }

  /** Prints the report, if a server was missing, and Surefire's undercount, if there is one. */
  @Override
  public synchronized void testPlanExecutionFinished(TestPlan testPlan) {
    PrintStream stream = out.get();
    if (!missing.isEmpty()) {
      int skipped = missing.values().stream().mapToInt(m -> m.tests).sum();
      stream.println(
          MARK + skipped + " of " + tests + " tests skipped because a server is missing:");
      missing.forEach(
          (backend, m) ->
              stream.println(
                  MARK
                      + "  "
                      + backend
                      + ", "
                      + m.tests
                      + (m.tests == 1 ? " test" : " tests")
                      + ": to run them, "
                      + m.howToEnable));
      stream.println(
          MARK + Backend.REQUIRE_VARIABLE + "=true makes a missing server fail the tests instead.");
    }
    List<String> shared = new ArrayList<>();
    int lost = 0;
    for (Map.Entry<String, List<TestExecutionResult.Status>> entry : bySurefireName.entrySet()) {
      List<TestExecutionResult.Status> results = entry.getValue();
      if (results.size() > 1
          && !results.stream().allMatch(s -> s == TestExecutionResult.Status.SUCCESSFUL)) {
        lost += results.size() - 1;
        shared.add(entry.getKey() + " (" + results.size() + " tests)");
      }
    }
    if (lost > 0) {
      stream.println(
          MARK
              + "Surefire's summary counts tests by top-level class and method name"
              + " (apache/maven-surefire#3264), so it shows "
              + lost
              + " fewer than ran: tests of different nested classes share "
              + shared.size()
              + " names, e.g. "
              + shared.get(0)
              + ". Give each configuration its own top-level test class.");
    }
  }

  private void record(TestIdentifier identifier, TestExecutionResult.Status status) {
    tests++;
    surefireName(identifier)
        .ifPresent(
            name -> bySurefireName.computeIfAbsent(name, n -> new ArrayList<>()).add(status));
  }

  /** The name Surefire merges a test's results under: top-level class and method. */
  private Optional<String> surefireName(TestIdentifier identifier) {
    if (!(identifier.getSource().orElse(null) instanceof MethodSource method)) {
      return Optional.empty();
    }
    TestIdentifier top = identifier;
    for (Optional<TestIdentifier> parent = plan.getParent(top);
        parent.isPresent() && plan.getParent(parent.get()).isPresent();
        parent = plan.getParent(top)) {
      top = parent.get();
    }
    if (!(top.getSource().orElse(null) instanceof ClassSource topClass)) {
      return Optional.empty();
    }
    boolean parameterized = !method.getMethodParameterTypes().isEmpty();
    return Optional.of(
        topClass.getClassName()
            + "."
            + (parameterized ? identifier.getLegacyReportingName() : method.getMethodName()));
  }

  /** What one missing server cost. */
  private static final class Missing {
    final String howToEnable;
    int tests;

    Missing(String howToEnable) {
      this.howToEnable = howToEnable;
    }
  }
}
