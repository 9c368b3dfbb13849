package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * The end-of-run report of missing servers, through a real JUnit launcher that finds {@link
 * SkipReport} by ServiceLoader as Surefire's does; the sample classes below run only inside it
 * (Surefire skips nested classes).
 */
class SkipReportTest {

  /** Servers that are never there: no variables, no Docker. */
  static final Backend POSTGRES = TestPostgres.SERVER.in(name -> null, Optional::empty);

  static final Backend CLUSTER = TestRedis.CLUSTER.in(name -> null, Optional::empty);

  /** Two tests skipped for PostgreSQL, one for the cluster, one that runs. */
  static class SkippingSample {
    @Test
    void needsPostgres() {
      POSTGRES.address();
    }

    @Test
    void needsPostgresToo() {
      POSTGRES.address();
    }

    @Test
    void needsCluster() {
      CLUSTER.address();
    }

    @Test
    void needsNothing() {}
  }

  /** Nothing missing. */
  static class Passing {
    @Test
    void passes() {}
  }

  /** A class skipped as a whole in {@code @BeforeAll}: its three tests are still counted. */
  static class SkippedInBeforeAll {
    @BeforeAll
    static void server() {
      POSTGRES.address();
    }

    @Test
    void one() {}

    @Test
    void two() {}

    @Test
    void three() {}
  }

  /** Two configurations of one suite as nested classes, one of them skipped. */
  static class NestedConfigurations {
    abstract static class Suite {
      abstract void server();

      @Test
      void rule() {
        server();
      }
    }

    @Nested
    class Present extends Suite {
      @Override
      void server() {}
    }

    @Nested
    class Absent extends Suite {
      @Override
      void server() {
        CLUSTER.address();
      }
    }
  }

  /**
   * What a class's resource on a missing server does to a framework that builds the test instance
   * from it (Spring's context reads a schema's URL in a {@code @DynamicPropertySource} and wraps
   * what it throws), and to a static initialiser's neighbour.
   */
  static class FrameworkFirst {
    @RegisterExtension static final PerClass SCHEMA = resource(POSTGRES);

    /** Loads a "context" from the resource when the test instance is made, as Spring does. */
    static class ContextLoader implements TestInstancePostProcessor {
      @Override
      public void postProcessTestInstance(Object instance, ExtensionContext context) {
        try {
          SCHEMA.server.address();
        } catch (RuntimeException e) {
          throw new IllegalStateException("Failed to load ApplicationContext", e);
        }
      }
    }

    @Nested
    @ExtendWith(ContextLoader.class)
    class Loaded {
      @Test
      void one() {}

      @Test
      void two() {}
    }
  }

  /** A per-class resource on {@code server} that owns nothing. */
  static PerClass resource(Backend server) {
    return new PerClass(server) {
      @Override
      boolean setUp() {
        return server.available();
      }

      @Override
      void cleanUp() {}
    };
  }

  @Test
  @DisplayName(
      "a test whose framework builds it from a missing server's resource is skipped, not an error")
  void skipsBeforeAFrameworkBuildsTheTest() {
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    String printed = run(summary, FrameworkFirst.class);
    assertEquals(0, summary.getSummary().getTotalFailureCount(), printed);
    assertEquals(2, summary.getSummary().getTestsAbortedCount(), printed);
    assertEquals(
        "[fencekit] 2 of 2 tests skipped because a server is missing:",
        reportLines(printed).get(0));
  }

  /** Runs {@code classes} in a launcher of their own and returns what it printed. */
  private static String run(Class<?>... classes) {
    return run(new SummaryGeneratingListener(), classes);
  }

  /** Runs {@code classes} in a launcher of their own, summed up in {@code summary}. */
  private static String run(SummaryGeneratingListener summary, Class<?>... classes) {
    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
    for (Class<?> type : classes) {
      request.selectors(selectClass(type));
    }
    Launcher launcher = LauncherFactory.create();
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      launcher.execute(request.build(), summary);
    } finally {
      System.setOut(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  private static List<String> reportLines(String printed) {
    return printed.lines().filter(line -> line.startsWith("[fencekit] ")).toList();
  }

  @Test
  @DisplayName("the listener is registered for ServiceLoader, so every launcher finds it")
  void registered() {
    assertTrue(
        ServiceLoader.load(TestExecutionListener.class).stream()
            .anyMatch(provider -> provider.type() == SkipReport.class),
        "META-INF/services/org.junit.platform.launcher.TestExecutionListener must name SkipReport");
  }

  @Test
  @DisplayName(
      "at the end of the run: how many tests each missing server skipped, and the variable that enables it")
  void reportsEachMissingServerOnce() {
    List<String> lines = reportLines(run(SkippingSample.class, SkippedInBeforeAll.class));
    assertEquals(
        List.of(
            "[fencekit] 6 of 7 tests skipped because a server is missing:",
            "[fencekit]   PostgreSQL, 5 tests: to run them, set"
                + " FENCEKIT_POSTGRES_URL=jdbc:postgresql://127.0.0.1:5432/test?user=postgres (any"
                + " PostgreSQL 12+ you may create schemas in), or start Docker so Testcontainers can"
                + " run postgres:15-alpine",
            "[fencekit]   Redis Cluster, 1 test: to run them, set"
                + " FENCEKIT_REDIS_CLUSTER_NODES=127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003"
                + " (`bash .ci/redis-cluster.sh start` starts one and prints its nodes), or start"
                + " Docker so Testcontainers can run redis:7.2",
            "[fencekit] FENCEKIT_REQUIRE_BACKENDS=true makes a missing server fail the tests"
                + " instead."),
        lines);
  }

  @Test
  @DisplayName("nothing is printed when no server was missing")
  void silentWhenNothingSkipped() {
    assertEquals(List.of(), reportLines(run(Passing.class)));
  }

  @Test
  @DisplayName("nested configurations Surefire would count as one test are named, with the loss")
  void warnsOfSurefireUndercount() {
    List<String> lines = reportLines(run(NestedConfigurations.class));
    assertEquals(4, lines.size(), String.join("\n", lines));
    assertEquals(
        "[fencekit] Surefire's summary counts tests by top-level class and method name"
            + " (apache/maven-surefire#3264), so it shows 1 fewer than ran: tests of different"
            + " nested classes share 1 names, e.g."
            + " org.fencekit.testsupport.SkipReportTest$NestedConfigurations.rule (2 tests). Give"
            + " each configuration its own top-level test class.",
        lines.get(3));
  }
}
