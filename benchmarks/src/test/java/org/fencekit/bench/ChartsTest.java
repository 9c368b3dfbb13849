package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The charts drawn from awkward figures: every store, errors larger than the figures, unknown and
 * missing figures, a store above its baseline. A look at the files is the real check; this one
 * catches a chart that is not written, blank, or not sized for its bars.
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

  /** Per store and thread count: a figure each, some of them hostile. */
  static Figure[] figures(StoreType store, int threads) {
    double base = Math.pow(10, 2 + store.ordinal() % 4) * (1 + threads / 8.0);
    switch (store) {
      case MEMORY:
        return new Figure[] {new Figure(base, base * 0.9), new Figure(base * 1.3, base * 2)};
      case SQLITE:
        return new Figure[] {new Figure(base * 5, 10), new Figure(base, base * 0.01)}; // above raw
      case SQLITE_NORMAL:
        return new Figure[] {new Figure(base, Double.NaN), new Figure(base * 2, Double.NaN)};
      case POSTGRES:
        return new Figure[] {
          threads == 4 ? Figure.NONE : new Figure(base * 0.03, base * 0.01), new Figure(base, 5)
        };
      default:
        return new Figure[] {new Figure(base * 0.8, base * 0.05), new Figure(base, base * 0.04)};
    }
  }

  @Test
  @DisplayName("both charts are drawn from hostile figures, sized for their bars, and not blank")
  void hostileFigures(@TempDir Path dir) throws IOException {
    List<StoreType> stores = List.of(StoreType.values());
    Charts.write(dir, RUN, new Charts.Bars(stores, List.of(1, 4, 16), ChartsTest::figures));
    int previous = 0;
    for (String name : List.of(Charts.STORE_OVER_RAW, Charts.THROUGHPUT)) {
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
      for (String name : List.of(Charts.THROUGHPUT, Charts.STORE_OVER_RAW)) {
        Files.copy(
            dir.resolve(name),
            Path.of(out, name),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }
}
