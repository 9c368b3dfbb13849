package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compare command end to end on the memory store, with the smoke profile (no timing looked at).
 */
class CompareCommandTest {

  @Test
  @DisplayName(
      "the compare command replays, benchmarks, prints tables and writes JSON, Markdown and a PNG")
  void compare(@TempDir Path dir) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status =
        Main.run(
            new String[] {"--smoke", "--only", "memory", "--out", dir.toString()},
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, out);
    assertTrue(out.contains("Every stale write was fenced off"), out);
    assertTrue(out.contains("[ 1/"), "no progress shown:\n" + out);
    assertTrue(out.contains("memory-map ops/s") && out.contains("store/memory-map"), out);
    assertTrue(out.contains("in-flight/s"), out);

    String json = Files.readString(dir.resolve("results.json"));
    assertTrue(json.contains("org.fencekit.bench.ClaimCompleteBenchmark.claimComplete"), json);
    assertTrue(json.contains("org.fencekit.bench.RawBaselineBenchmark.claimComplete"), json);
    assertTrue(json.contains("org.fencekit.bench.HotOrderBenchmark.claimAndSettle"), json);
    assertTrue(json.contains("org.fencekit.bench.StaleWriteBenchmark.storm"), json);

    String md = Files.readString(dir.resolve("results.md"));
    assertTrue(md.contains("## Summary") && md.contains("| memory"), md);
    assertTrue(md.contains("heap per provisioned order"), md);

    BufferedImage chart = ImageIO.read(dir.resolve("throughput.png").toFile());
    assertEquals(1000, chart.getWidth());
  }

  @Test
  @DisplayName("an unknown flag is refused with the usage")
  void usage() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status =
        Main.run(new String[] {"--fast"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertEquals(64, status);
    assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("usage:"));
  }
}
