package org.fencekit.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;

/**
 * The chart of the compare command: claim+complete throughput per backend (groups) and thread count
 * (bars), on a logarithmic axis since the backends span three orders of magnitude, with a black
 * tick on each bar at the backend's raw baseline for the same thread count. Drawn with java.awt in
 * headless mode.
 */
final class Chart {

  private static final int WIDTH = 1000;
  private static final int HEIGHT = 560;
  private static final int LEFT = 90;
  private static final int RIGHT = 30;
  private static final int TOP = 60;
  private static final int BOTTOM = 90;
  private static final Color[] COLORS = {
    new Color(0x4C78A8), new Color(0xF58518), new Color(0x54A24B), new Color(0xB279A2)
  };

  private Chart() {}

  static void write(Path file, List<StoreType> stores, List<Job> jobs, List<Integer> threads)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      draw(g, stores, jobs, threads);
    } finally {
      g.dispose();
    }
    ImageIO.write(image, "png", file.toFile());
  }

  private static void draw(
      Graphics2D g, List<StoreType> stores, List<Job> jobs, List<Integer> threads) {
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString("fencekit: claim + complete of fresh orders, ops/s (log scale)", LEFT, 28);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawString(
        "bars: the store; black tick: its raw baseline (same statements, bare driver)", LEFT, 46);

    double max = 10;
    double min = Double.MAX_VALUE;
    for (Job job : jobs) {
      if ((job.kind == Kind.THROUGHPUT || job.kind == Kind.RAW) && job.first() != null) {
        double score = Report.score(job.first());
        max = Math.max(max, score);
        min = score > 0 ? Math.min(min, score) : min;
      }
    }
    int lowExp = min == Double.MAX_VALUE ? 0 : Math.max(0, (int) Math.floor(Math.log10(min)));
    int highExp = Math.max(lowExp + 1, (int) Math.ceil(Math.log10(max)));
    int plotHeight = HEIGHT - TOP - BOTTOM;
    int plotWidth = WIDTH - LEFT - RIGHT;

    FontMetrics fm = g.getFontMetrics();
    for (int e = lowExp; e <= highExp; e++) {
      int y = y(Math.pow(10, e), lowExp, highExp, plotHeight);
      g.setColor(new Color(0xDDDDDD));
      g.drawLine(LEFT, y, LEFT + plotWidth, y);
      g.setColor(Color.DARK_GRAY);
      String label = String.format(Locale.ROOT, "%,.0f", Math.pow(10, e));
      g.drawString(label, LEFT - 8 - fm.stringWidth(label), y + 4);
    }
    g.setColor(Color.BLACK);
    g.drawLine(LEFT, TOP, LEFT, TOP + plotHeight);
    g.drawLine(LEFT, TOP + plotHeight, LEFT + plotWidth, TOP + plotHeight);

    int groups = Math.max(1, stores.size());
    int groupWidth = plotWidth / groups;
    int barWidth =
        Math.min(48, Math.max(8, (int) (groupWidth * 0.7 / Math.max(1, threads.size()))));
    for (int s = 0; s < stores.size(); s++) {
      StoreType store = stores.get(s);
      int groupLeft = LEFT + s * groupWidth + (groupWidth - barWidth * threads.size()) / 2;
      List<RawBaseline> baselines = Report.baselines(store);
      for (int i = 0; i < threads.size(); i++) {
        int t = threads.get(i);
        int x = groupLeft + i * barWidth;
        double ops = Report.score(Report.find(jobs, store, Kind.THROUGHPUT, null, t));
        if (!Double.isNaN(ops) && ops > 0) {
          int top = y(ops, lowExp, highExp, plotHeight);
          g.setColor(COLORS[i % COLORS.length]);
          g.fillRect(x + 2, top, barWidth - 4, TOP + plotHeight - top);
          g.setColor(Color.DARK_GRAY);
          g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
          String value = compact(ops);
          g.drawString(
              value, x + barWidth / 2 - g.getFontMetrics().stringWidth(value) / 2, top - 4);
        }
        if (!baselines.isEmpty()) {
          double raw = Report.score(Report.find(jobs, store, Kind.RAW, baselines.get(0), t));
          if (!Double.isNaN(raw) && raw > 0) {
            int ry = y(raw, lowExp, highExp, plotHeight);
            g.setColor(Color.BLACK);
            g.setStroke(new BasicStroke(3));
            g.drawLine(x, ry, x + barWidth, ry);
            g.setStroke(new BasicStroke(1));
          }
        }
      }
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
      String name = store.label();
      int center = LEFT + s * groupWidth + groupWidth / 2;
      g.drawString(name, center - g.getFontMetrics().stringWidth(name) / 2, TOP + plotHeight + 20);
    }

    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int lx = LEFT;
    int ly = HEIGHT - 30;
    for (int i = 0; i < threads.size(); i++) {
      g.setColor(COLORS[i % COLORS.length]);
      g.fillRect(lx, ly - 10, 14, 12);
      g.setColor(Color.BLACK);
      String label = threads.get(i) + (threads.get(i) == 1 ? " thread" : " threads");
      g.drawString(label, lx + 20, ly);
      lx += 40 + g.getFontMetrics().stringWidth(label);
    }
    g.setStroke(new BasicStroke(3));
    g.drawLine(lx, ly - 4, lx + 20, ly - 4);
    g.setStroke(new BasicStroke(1));
    g.drawString("raw baseline", lx + 26, ly);
  }

  private static int y(double value, int lowExp, int highExp, int plotHeight) {
    double clamped = Math.max(Math.pow(10, lowExp), value);
    double f = (Math.log10(clamped) - lowExp) / (highExp - lowExp);
    return TOP + plotHeight - (int) Math.round(f * plotHeight);
  }

  private static String compact(double v) {
    if (v >= 1_000_000) {
      return String.format(Locale.ROOT, "%.1fM", v / 1_000_000);
    }
    if (v >= 1_000) {
      return String.format(Locale.ROOT, "%.1fk", v / 1_000);
    }
    return String.format(Locale.ROOT, "%.0f", v);
  }
}
