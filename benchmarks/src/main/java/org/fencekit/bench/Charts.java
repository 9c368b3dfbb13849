package org.fencekit.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.NumberFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.labels.CategoryItemLabelGenerator;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.category.StatisticalBarRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.statistics.DefaultStatisticalCategoryDataset;

/**
 * The main job's two charts, drawn with JFreeChart from the paired comparisons ({@link
 * Report.Row}): horizontal bars, one group per comparison (a store beside its raw baseline or a
 * peer), one bar per thread count, each labelled at the bar's base on a patch that hides the
 * whisker behind it, and the machine, the date and the profile under the title.
 *
 * <ul>
 *   <li>{@code throughput.png}: the median ops/s of each side's trials, on a logarithmic axis (the
 *       stores span three orders of magnitude);
 *   <li>{@code ratios.png}: each paired ratio, its whisker the larger half of its 95% interval, on
 *       a linear axis with a line at 1.0, labelled with the interval and the target's verdict.
 * </ul>
 */
final class Charts {

  /** The throughput chart's file name. */
  static final String THROUGHPUT = "throughput.png";

  /** The ratio chart's file name. */
  static final String RATIOS = "ratios.png";

  private static final int WIDTH = 1200;
  private static final int BAR_HEIGHT = 19;
  // mid tones for the stores, pale ones for what they are beside: black labels read on both
  private static final Color[] STORE_COLORS = {
    new Color(0x5B9BD5), new Color(0xEE9A4D), new Color(0x70BF6E), new Color(0xA98BC9)
  };
  private static final Color[] BESIDE_COLORS = {
    new Color(0xD3E4F4), new Color(0xFBE1C6), new Color(0xD6EDD5), new Color(0xE6DCF0)
  };
  private static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

  private Charts() {}

  /** Writes both charts into {@code dir}. */
  static void write(Path dir, Run run, List<Report.Row> rows) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Integer> threads = rows.stream().map(Report.Row::threads).distinct().toList();
    long groups = rows.stream().map(Charts::group).distinct().count();
    save(dir.resolve(THROUGHPUT), throughput(run, rows, threads), groups, 2 * threads.size());
    save(dir.resolve(RATIOS), ratios(run, rows, threads), groups, threads.size());
  }

  private static void save(Path file, JFreeChart chart, long groups, int barsPerGroup)
      throws IOException {
    int height = (int) (230 + Math.max(1, groups) * (barsPerGroup * BAR_HEIGHT + 22));
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, height);
  }

  private static String group(Report.Row row) {
    return row.store() + " / " + row.beside();
  }

  static JFreeChart throughput(Run run, List<Report.Row> rows, List<Integer> threads) {
    DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
    Map<String, String> labels = new HashMap<>();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (int t : threads) {
      for (Report.Row row : rows) {
        if (row.threads() != t) {
          continue;
        }
        for (boolean store : new boolean[] {true, false}) {
          String series = threadsLabel(t) + (store ? ", store" : ", beside");
          double ops = store ? row.ops() : row.besideOps();
          if (ops > 0) {
            data.add(Double.valueOf(ops), null, series, group(row));
            labels.put(series + "|" + group(row), compact(ops));
            min = Math.min(min, ops);
            max = Math.max(max, ops);
          }
        }
      }
    }
    LogAxis axis = new LogAxis("ops/s, the median of each side's trials (logarithmic)");
    axis.setBase(10);
    axis.setSmallestValue(1);
    axis.setNumberFormatOverride(new DecimalFormat("#,##0"));
    axis.setTickUnit(new NumberTickUnit(1)); // one tick per power of ten
    if (max > 0) {
      axis.setRange(
          Math.pow(10, Math.floor(Math.log10(Math.max(1, min)))),
          Math.pow(10, Math.ceil(Math.log10(max * 1.05))));
    }
    StatisticalBarRenderer renderer = renderer(labels);
    for (int i = 0; i < threads.size(); i++) {
      renderer.setSeriesPaint(2 * i, STORE_COLORS[i % STORE_COLORS.length]);
      renderer.setSeriesPaint(2 * i + 1, BESIDE_COLORS[i % BESIDE_COLORS.length]);
    }
    return chart(
        "fencekit: each store beside its raw baseline or peer, paired trials",
        "store: claim + complete of fresh orders; beside: the raw baseline (the store's own SQL or"
            + " Lua through the bare driver) or a peer's lock + unlock; one hot order: claims won"
            + " beside locks acquired",
        run,
        data,
        axis,
        renderer);
  }

  static JFreeChart ratios(Run run, List<Report.Row> rows, List<Integer> threads) {
    DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
    Map<String, String> labels = new HashMap<>();
    double max = 1.1;
    for (int t : threads) {
      for (Report.Row row : rows) {
        Ratio ratio = row.ratio();
        if (row.threads() != t || !ratio.measured()) {
          continue;
        }
        Double whisker = Double.isNaN(ratio.low()) ? null : ratio.halfWidth() * ratio.median();
        data.add(Double.valueOf(ratio.median()), whisker, threadsLabel(t), group(row));
        String verdict = row.target().verdict(ratio);
        labels.put(
            threadsLabel(t) + "|" + group(row),
            ratio.text() + (verdict.equals("-") ? "" : "  " + verdict));
        max = Math.max(max, ratio.median() + (whisker == null ? 0 : whisker));
      }
    }
    NumberAxis axis =
        new NumberAxis("store ops/s over its raw baseline's or peer's, paired trials");
    axis.setRange(0, Math.min(6, max * 1.08));
    StatisticalBarRenderer renderer = renderer(labels);
    for (int i = 0; i < threads.size(); i++) {
      renderer.setSeriesPaint(i, STORE_COLORS[i % STORE_COLORS.length]);
    }
    JFreeChart chart =
        chart(
            "fencekit: each store's throughput over its raw baseline's or peer's (1.0 = as fast)",
            "bar: the median of the pairs' ratios; whisker: the larger half of its 95% interval;"
                + " label: the interval, its half-width and the target's verdict",
            run,
            data,
            axis,
            renderer);
    ValueMarker parity = new ValueMarker(1.0, Color.BLACK, new BasicStroke(1.5f));
    parity.setLabel("1.0 = as fast");
    parity.setLabelFont(LABEL);
    parity.setLabelBackgroundColor(Color.WHITE);
    parity.setLabelAnchor(RectangleAnchor.BOTTOM_LEFT);
    parity.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
    parity.setLabelOffset(new RectangleInsets(2, 4, 2, 4));
    chart.getCategoryPlot().addRangeMarker(parity);
    return chart;
  }

  /** Bars labelled {@code labels.get("series|store")} ({@link LabelledBars}). */
  private static StatisticalBarRenderer renderer(Map<String, String> labels) {
    StatisticalBarRenderer renderer = new LabelledBars();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setItemMargin(0.04);
    renderer.setErrorIndicatorPaint(Color.BLACK);
    renderer.setErrorIndicatorStroke(new BasicStroke(1.2f));
    renderer.setDefaultItemLabelGenerator(
        new StandardCategoryItemLabelGenerator() {
          private static final long serialVersionUID = 1L;

          @Override
          public String generateLabel(CategoryDataset data, int row, int column) {
            return labels.get(data.getRowKey(row) + "|" + data.getColumnKey(column));
          }
        });
    renderer.setDefaultItemLabelsVisible(true);
    renderer.setDefaultItemLabelFont(LABEL);
    renderer.setDefaultItemLabelPaint(Color.BLACK);
    return renderer;
  }

  /**
   * Bars whose label sits at the bar's base on a patch of the bar's own colour (on white past the
   * bar's end when the bar is too short), drawn after the whisker, so a whisker never runs through
   * a label and no two labels meet.
   */
  private static final class LabelledBars extends StatisticalBarRenderer {
    private static final long serialVersionUID = 1L;
    private static final double PAD = 4;

    @Override
    protected void drawItemLabel(
        Graphics2D g2,
        CategoryDataset data,
        int row,
        int column,
        CategoryPlot plot,
        CategoryItemLabelGenerator generator,
        Rectangle2D bar,
        boolean negative) {
      String text = generator == null ? null : generator.generateLabel(data, row, column);
      if (text == null) {
        return;
      }
      g2.setFont(getItemLabelFont(row, column));
      FontMetrics metrics = g2.getFontMetrics();
      double width = metrics.stringWidth(text) + 2 * PAD;
      double height = metrics.getAscent() + metrics.getDescent() + 2;
      boolean inside = width + 2 * PAD <= bar.getWidth();
      double x = inside ? bar.getMinX() + PAD : bar.getMaxX() + PAD;
      double y = bar.getCenterY() - height / 2;
      g2.setPaint(inside ? getItemPaint(row, column) : Color.WHITE);
      g2.fill(new Rectangle2D.Double(x, y, width, height));
      g2.setPaint(getItemLabelPaint(row, column));
      TextUtils.drawAlignedString(
          text, g2, (float) (x + PAD), (float) bar.getCenterY(), TextAnchor.CENTER_LEFT);
    }
  }

  private static JFreeChart chart(
      String title,
      String legendNote,
      Run run,
      CategoryDataset data,
      ValueAxis axis,
      StatisticalBarRenderer renderer) {
    CategoryAxis stores = new CategoryAxis();
    stores.setTickLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    stores.setCategoryMargin(0.18);
    axis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    CategoryPlot plot = new CategoryPlot(data, stores, axis, renderer);
    plot.setOrientation(PlotOrientation.HORIZONTAL);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(new Color(0xCCCCCC));
    plot.setRangeGridlinesVisible(true);
    plot.setOutlineVisible(false);
    JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 17), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setPadding(new RectangleInsets(8, 8, 8, 40)); // room for the last tick label
    chart.addSubtitle(0, subtitle(run.machine()));
    chart.addSubtitle(
        1,
        subtitle(
            run.started() + " · " + run.profile().describe() + " · load average " + run.load()));
    TextTitle note = subtitle(legendNote);
    note.setPosition(RectangleEdge.BOTTOM);
    chart.addSubtitle(note);
    LegendTitle legend = chart.getLegend();
    legend.setFrame(BlockBorder.NONE);
    legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    return chart;
  }

  private static TextTitle subtitle(String text) {
    TextTitle title = new TextTitle(text, new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    title.setPaint(new Color(0x333333));
    title.setMaximumLinesToDisplay(2);
    return title;
  }

  private static String threadsLabel(int threads) {
    return threads + (threads == 1 ? " thread" : " threads");
  }

  /** {@code 334K}: short enough to sit inside a bar (the JDK's compact number format). */
  static String compact(double value) {
    NumberFormat format =
        NumberFormat.getCompactNumberInstance(Locale.ROOT, NumberFormat.Style.SHORT);
    format.setMaximumFractionDigits(1);
    return format.format(value);
  }
}
