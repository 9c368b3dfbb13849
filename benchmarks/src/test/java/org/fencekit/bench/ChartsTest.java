package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The charts drawn from awkward rows: every store, intervals wider than the ratios, missing
 * intervals and figures, a store far above what it is beside. A look at the files is the real
 * check; this one catches a chart that is not written, blank, or not sized for its bars.
 */
class ChartsTest {

  private static final Run RUN =
      new Run(
          Profile.SHORT,
          "java -jar benchmarks/target/fencekit-benchmarks.jar",
          "none set",
          "2026-12-01 10:00 UTC",
          "a test machine, 2 cores",
          "1.00 before, 2.00 after");

  /** A row per store and thread count, some of them hostile. */
  static List<Report.Row> rows() {
    List<Report.Row> rows = new ArrayList<>();
    for (StoreType store : StoreType.values()) {
      for (int t : List.of(1, 4, 16)) {
        double ops = Math.pow(10, 2 + store.ordinal() % 4) * (1 + t / 8.0);
        Ratio ratio =
            switch (store) {
              case MEMORY -> new Ratio(0.5, 0.01, 3.0, 8); // wider than itself
              case SQLITE -> new Ratio(5.0, 4.9, 5.2, 40); // far above
              case SQLITE_NORMAL -> new Ratio(0.9, Double.NaN, Double.NaN, 3); // no interval
              case POSTGRES -> t == 4 ? Ratio.of(new double[0]) : new Ratio(0.8, 0.75, 0.85, 30);
              default -> new Ratio(0.97, 0.9, 1.02, 30);
            };
        rows.add(
            new Report.Row(
                store.label(),
                t,
                RawBaseline.of(store).label(),
                ops * ratio.median(),
                t == 16 ? Double.NaN : ops,
                ratio,
                Target.raw(store),
                900,
                Double.NaN));
      }
    }
    return rows;
  }

  @Test
  @DisplayName("both charts are drawn from hostile rows, sized for their bars, and not blank")
  void hostileRows(@TempDir Path dir) throws IOException {
    Charts.write(dir, RUN, rows());
    int previous = 0;
    for (String name : List.of(Charts.RATIOS, Charts.THROUGHPUT)) {
      BufferedImage chart = ImageIO.read(dir.resolve(name).toFile());
      assertEquals(1200, chart.getWidth(), name);
      assertTrue(chart.getHeight() > previous, name + " is no taller with twice the bars");
      previous = chart.getHeight();
      Set<Integer> colors = new HashSet<>();
      for (int y = 0; y < chart.getHeight(); y += 3) {
        for (int x = 0; x < chart.getWidth(); x += 3) {
          colors.add(chart.getRGB(x, y));
        }
      }
      assertTrue(colors.size() > 50, name + ": only " + colors.size() + " colours");
      assertTrue(Files.size(dir.resolve(name)) > 30_000, name + " is nearly empty");
    }
    String out = System.getProperty("fencekit.charts.out");
    if (out != null) { // to look at them: -Dfencekit.charts.out=/tmp/charts
      Files.createDirectories(Path.of(out));
      for (String name : List.of(Charts.THROUGHPUT, Charts.RATIOS)) {
        Files.copy(
            dir.resolve(name),
            Path.of(out, name),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }
}
