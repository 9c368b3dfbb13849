package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The main job end to end on the embedded stores (every store it finds without a server variable),
 * with the smoke profile (no timing looked at): what it leaves out, its tables, its report, its
 * charts.
 */
class CompareCommandTest {

  @TempDir static Path dir;
  private static String out;
  private static int status;

  @BeforeAll
  static void compare() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    status =
        Main.run(
            new String[] {"--smoke", "--out", dir.toString()},
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            Map.of());
    out = bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName(
      "the main job benchmarks with progress, prints tables, the stale-write storm's among them, and exits 0")
  void console() {
    assertEquals(0, status, out);
    assertTrue(out.contains("landed/s"), out);
    assertTrue(out.contains("[ 1/"), "no progress shown:\n" + out);
    assertTrue(out.contains("memory-map") && out.contains("store / beside [95%]"), out);
    assertTrue(out.contains("undecided: too few pairs"), out);
    assertTrue(out.contains("in-flight/s"), out);
    assertTrue(out.contains(Report.HOW_TO_READ), out);
    assertTrue(out.contains(dir.resolve(Charts.RATIOS).toString()), out);
  }

  @Test
  @DisplayName("a server store left out without being asked for is named with its variable, once")
  void leftOut() {
    for (StoreType store :
        List.of(
            StoreType.POSTGRES,
            StoreType.POSTGRES_LOCKING,
            StoreType.MYSQL,
            StoreType.MYSQL_DATASOURCE)) {
      String line = store.label() + ": left out, " + store.server().variable() + " is not set";
      assertEquals(1, out.split(java.util.regex.Pattern.quote(line), -1).length - 1, out);
    }
  }

  @Test
  @DisplayName("results.json holds every benchmark's JMH results")
  void json() throws IOException {
    String json = Files.readString(dir.resolve("results.json"));
    assertTrue(json.contains("org.fencekit.bench.ClaimCompleteBenchmark.claimComplete"), json);
    assertTrue(json.contains("org.fencekit.bench.PairedBenchmark.overRaw"), json);
    assertTrue(json.contains("org.fencekit.bench.HotOrderBenchmark.claimAndSettle"), json);
    assertTrue(json.contains("org.fencekit.bench.StaleWriteBenchmark.storm"), json);
  }

  @Test
  @DisplayName(
      "results.md gives the command that ran, how to read it, no JMH figure without its error, no ratio without its pairs, and no internal words")
  void markdown() throws IOException {
    String md = Files.readString(dir.resolve("results.md"));
    assertTrue(md.contains("## Ratios") && md.contains("| memory"), md);
    assertTrue(md.contains("heap per provisioned order"), md);
    assertTrue(
        md.contains(
            "- command: `org.fencekit.bench.Main --smoke --out " + dir + " (called in-process by "),
        md);
    assertTrue(
        md.contains("- servers: none set; not set: FENCEKIT_POSTGRES_URL, FENCEKIT_MYSQL_URL"), md);
    assertTrue(md.contains(Report.HOW_TO_READ) && md.contains(Target.LEGEND), md);
    // the smoke profile runs one iteration: JMH gives no error, and the report says so
    assertTrue(md.contains(" ±?"), md);
    assertEquals(List.of(), figuresWithoutError(md));
    for (String internal : List.of("issue ", "the seed", "ceiling")) {
      assertFalse(md.toLowerCase().contains(internal), "'" + internal + "' in\n" + md);
    }
  }

  /**
   * Cells of JMH's rate and allocation columns that carry no ±, and ratio cells with neither an
   * interval nor their few pairs (the medians of paired trials carry neither).
   */
  private static List<String> figuresWithoutError(String md) {
    List<String> bad = new java.util.ArrayList<>();
    String[] header = null;
    for (String line : md.split("\n")) {
      if (!line.startsWith("|")) {
        header = null;
        continue;
      }
      String[] cells = line.substring(1).split("\\|");
      if (header == null) {
        header = cells;
      } else if (!line.startsWith("|:")) {
        for (int c = 0; c < cells.length; c++) {
          String h = header[c].trim();
          String cell = cells[c].trim();
          boolean median = h.startsWith("median") || h.startsWith("its") || h.equals("B/op");
          boolean figure = !median && (h.endsWith("/s") || h.contains("B/"));
          boolean ratio = h.contains(" / ");
          if (figure && !cell.equals("-") && !cell.contains("±")
              || ratio && !cell.contains("±") && !cell.contains("too few for an interval")) {
            bad.add(h + ": " + cell + " in " + line);
          }
        }
      }
    }
    return bad;
  }

  @Test
  @DisplayName("both charts are written, drawn, and sized for their stores")
  void charts() throws IOException {
    for (String name : List.of(Charts.THROUGHPUT, Charts.RATIOS)) {
      Path file = dir.resolve(name);
      assertTrue(Files.size(file) > 20_000, name + " is only " + Files.size(file) + " bytes");
      BufferedImage chart = ImageIO.read(file.toFile());
      assertEquals(1200, chart.getWidth(), name);
      assertTrue(chart.getHeight() >= 300, name + " height " + chart.getHeight());
      Set<Integer> colors = new HashSet<>();
      for (int y = 0; y < chart.getHeight(); y += 3) {
        for (int x = 0; x < chart.getWidth(); x += 3) {
          colors.add(chart.getRGB(x, y));
        }
      }
      assertTrue(colors.size() > 50, name + " has only " + colors.size() + " colours: blank?");
    }
  }
}
