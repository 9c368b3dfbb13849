package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The main job's command line: its exit codes, its errors, its usage. No benchmark runs here. */
class CommandLineTest {

  /** What a run printed, and its exit code. */
  private record Ran(int status, String out) {}

  private static Ran run(Map<String, String> env, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = Main.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8), env);
    return new Ran(status, bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("--help exits 0 and lists every option, store label and exit code")
  void help() {
    Ran ran = run(Map.of(), "--help");
    assertEquals(0, ran.status, ran.out);
    for (String text :
        List.of(
            "Usage: java -jar benchmarks/target/fencekit-benchmarks.jar",
            "--full",
            "--smoke",
            "--only=STORE",
            "--out=DIR",
            "--ratios-only",
            "FENCEKIT_POSTGRES_URL",
            "FENCEKIT_MYSQL_URL",
            "FENCEKIT_REDIS_URL",
            "FENCEKIT_REDIS_CLUSTER_NODES",
            "Exit codes:",
            "benchmarks/results/<UTC timestamp>/")) {
      assertTrue(ran.out.contains(text), "no '" + text + "' in\n" + ran.out);
    }
    String listed =
        ran.out
            .substring(ran.out.indexOf("comma-separated:"), ran.out.indexOf("A server store"))
            .replaceAll("\\s+", " ");
    for (StoreType store : StoreType.values()) {
      assertTrue(
          listed.matches(".*[: ]" + store.label() + "[,.].*"),
          store.label() + " missing from --only's list: " + listed);
    }
    for (int code : List.of(0, 1, 2, 64)) {
      assertTrue(
          ran.out.matches("(?s).*\\n\\s+" + code + "\\s+\\S.*"),
          "exit code " + code + ":\n" + ran.out);
    }
  }

  @Test
  @DisplayName("an unknown option exits 64 with the usage")
  void unknownOption() {
    Ran ran = run(Map.of(), "--fast");
    assertEquals(Main.USAGE, ran.status, ran.out);
    assertTrue(ran.out.contains("Unknown option: '--fast'") && ran.out.contains("Usage:"), ran.out);
  }

  @Test
  @DisplayName("an unknown store name exits 64 and lists the store names")
  void unknownStore() {
    Ran ran = run(Map.of(), "--only", "postgres_locking");
    assertEquals(Main.USAGE, ran.status, ran.out);
    assertTrue(ran.out.contains("no store called 'postgres_locking'"), ran.out);
    assertTrue(ran.out.contains(StoreType.labels()), ran.out);
  }

  @Test
  @DisplayName("--full and --smoke together exit 64")
  void twoProfiles() {
    Ran ran = run(Map.of(), "--full", "--smoke");
    assertEquals(Main.USAGE, ran.status, ran.out);
    assertTrue(ran.out.contains("mutually exclusive"), ran.out);
  }

  @Test
  @DisplayName(
      "a server store asked for by name without its variable exits 2 naming the variable, and runs nothing")
  void unavailableStoreAskedFor() {
    for (StoreType store :
        List.of(StoreType.POSTGRES, StoreType.MYSQL, StoreType.REDIS, StoreType.REDIS_CLUSTER)) {
      Ran ran = run(Map.of(), "--smoke", "--only", "memory," + store.label());
      assertEquals(Main.UNAVAILABLE, ran.status, ran.out);
      assertTrue(
          ran.out.contains("ERROR --only " + store.label() + ": ")
              && ran.out.contains(store.server().variable() + " is not set")
              && ran.out.contains(store.server().example()),
          ran.out);
      assertFalse(ran.out.contains("benchmarks: "), "it ran anyway:\n" + ran.out);
    }
  }

  @Test
  @DisplayName("a malformed server variable exits 2 naming the variable and a good value")
  void malformedVariable() {
    Ran ran = run(Map.of("FENCEKIT_REDIS_URL", "http://127.0.0.1:6379"));
    assertEquals(Main.UNAVAILABLE, ran.status, ran.out);
    assertTrue(
        ran.out.contains("ERROR redis: FENCEKIT_REDIS_URL is not a Redis URL")
            && ran.out.contains("A good value: FENCEKIT_REDIS_URL=redis://127.0.0.1:6379"),
        ran.out);
    Ran secret = run(Map.of("FENCEKIT_POSTGRES_URL", "postgres://shop:s3cret@db/shop"));
    assertEquals(Main.UNAVAILABLE, secret.status, secret.out);
    assertTrue(
        secret.out.contains("FENCEKIT_POSTGRES_URL is not a PostgreSQL JDBC URL"), secret.out);
    assertFalse(secret.out.contains("s3cret"), secret.out);
    Ran mysql = run(Map.of("FENCEKIT_MYSQL_URL", "mysql://shop:s3cret@db/shop"));
    assertEquals(Main.UNAVAILABLE, mysql.status, mysql.out);
    assertTrue(
        mysql.out.contains("ERROR mysql: FENCEKIT_MYSQL_URL is not a MySQL JDBC URL")
            && mysql.out.contains(
                "A good value: FENCEKIT_MYSQL_URL=jdbc:mysql://127.0.0.1:3306/test?user=root"),
        mysql.out);
    assertFalse(mysql.out.contains("s3cret"), mysql.out);
  }

  @Test
  @DisplayName("a comparison that measured nothing, or had a failed run, never exits 0")
  void measuredNothing() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    List<Job> none = new ArrayList<>();
    assertEquals(Main.UNAVAILABLE, Main.verdict(none, 0, out, java.nio.file.Path.of("x")));
    List<Job> failedOnly = List.of(new Job(StoreType.MEMORY, Kind.RAW, null, 1));
    assertEquals(Main.UNAVAILABLE, Main.verdict(failedOnly, 1, out, java.nio.file.Path.of("x")));
    assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("nothing was measured"));
  }
}
