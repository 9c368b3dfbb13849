package org.fencekit.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.NumberFormat;
import java.util.Comparator;
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
import org.jfree.chart.labels.CategoryItemLabelGenerator;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.category.StatisticalBarRenderer;
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
 * peer), one bar per thread count, each labelled at the bar's base, and the machine, the date and
 * the profile under the title.
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

  private Charts() {}

  /** Writes both charts into {@code dir}. */
  static void write(Path dir, Run run, List<Report.Row> rows) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Integer> threads = rows.stream().map(Report.Row::threads).distinct().toList();
    long groups = rows.stream().map(Charts::group).distinct().count();
    // the bars of one thread count together, in run order: the series and groups in that order
    List<Report.Row> byThreads =
        rows.stream().sorted(Comparator.comparing(row -> threads.indexOf(row.threads()))).toList();
    save(dir.resolve(THROUGHPUT), throughput(run, byThreads), groups, 2 * threads.size());
    save(dir.resolve(RATIOS), ratios(run, byThreads), groups, threads.size());
  }

  private static void save(Path file, JFreeChart chart, long groups, int barsPerGroup)
      throws IOException {
    int height = (int) (230 + Math.max(1, groups) * (barsPerGroup * BAR_HEIGHT + 22));
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, height);
  }

  private static String group(Report.Row row) {
    return row.store() + " / " + row.beside();
  }

  static JFreeChart throughput(Run run, List<Report.Row> rows) {
    DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (Report.Row row : rows) {
      for (boolean store : new boolean[] {true, false}) {
        double ops = store ? row.ops() : row.besideOps();
        if (ops > 0) {
          String series = threadsLabel(row.threads()) + (store ? ", store" : ", beside");
          data.add(Double.valueOf(ops), null, series, group(row));
          min = Math.min(min, ops);
          max = Math.max(max, ops);
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
    return chart(
        "fencekit: each store beside its raw baseline or peer, paired trials",
        "store: claim + complete of fresh orders; beside: the raw baseline (the store's own SQL or"
            + " Lua through the bare driver) or a peer's lock + unlock; one hot order: claims won"
            + " beside locks acquired",
        run,
        data,
        axis,
        new StandardCategoryItemLabelGenerator("{2}", compact()));
  }

  static JFreeChart ratios(Run run, List<Report.Row> rows) {
    DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
    Map<String, String> labels = new HashMap<>();
    double max = 1.1;
    for (Report.Row row : rows) {
      Ratio ratio = row.ratio();
      if (ratio.measured()) {
        Double whisker = Double.isNaN(ratio.low()) ? null : ratio.halfWidth() * ratio.median();
        data.add(Double.valueOf(ratio.median()), whisker, threadsLabel(row.threads()), group(row));
        String verdict = row.target().verdict(ratio);
        labels.put(
            threadsLabel(row.threads()) + "|" + group(row),
            ratio.text() + (verdict.equals("-") ? "" : "  " + verdict));
        max = Math.max(max, ratio.median() + (whisker == null ? 0 : whisker));
      }
    }
    NumberAxis axis =
        new NumberAxis("store ops/s over its raw baseline's or peer's, paired trials");
    axis.setRange(0, Math.min(6, max * 1.08));
    JFreeChart chart =
        chart(
            "fencekit: each store's throughput over its raw baseline's or peer's (1.0 = as fast)",
            "bar: the median of the pairs' ratios; whisker: the larger half of its 95% interval;"
                + " label: the interval, its half-width and the target's verdict",
            run,
            data,
            axis,
            new StandardCategoryItemLabelGenerator() {
              private static final long serialVersionUID = 1L;

              @Override
              public String generateLabel(CategoryDataset data, int row, int column) {
                return labels.get(data.getRowKey(row) + "|" + data.getColumnKey(column));
              }
            });
    ValueMarker parity = new ValueMarker(1.0, Color.BLACK, new BasicStroke(1.5f));
    parity.setLabel("1.0 = as fast");
    parity.setLabelAnchor(RectangleAnchor.BOTTOM_LEFT);
    parity.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
    chart.getCategoryPlot().addRangeMarker(parity);
    return chart;
  }

  /**
   * A chart of horizontal bars, each labelled by {@code labels} at the bar's base (past the bar's
   * end when the bar is too short for its label), with the run under the title.
   */
  private static JFreeChart chart(
      String title,
      String legendNote,
      Run run,
      CategoryDataset data,
      ValueAxis axis,
      CategoryItemLabelGenerator labels) {
    StatisticalBarRenderer renderer = new StatisticalBarRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setItemMargin(0.04); // bars tall enough for a label inside
    renderer.setErrorIndicatorPaint(Color.BLACK);
    renderer.setDefaultItemLabelGenerator(labels);
    renderer.setDefaultItemLabelsVisible(true);
    renderer.setDefaultPositiveItemLabelPosition(
        new ItemLabelPosition(ItemLabelAnchor.INSIDE9, TextAnchor.CENTER_LEFT));
    renderer.setPositiveItemLabelPositionFallback(
        new ItemLabelPosition(ItemLabelAnchor.OUTSIDE3, TextAnchor.CENTER_LEFT));
    CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(), axis, renderer);
    plot.setOrientation(PlotOrientation.HORIZONTAL);
    JFreeChart chart = new JFreeChart(title, plot);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setPadding(new RectangleInsets(8, 8, 8, 40)); // room for the last tick label
    chart.addSubtitle(new TextTitle(run.machine()));
    chart.addSubtitle(
        new TextTitle(
            run.started() + " · " + run.profile().describe() + " · load average " + run.load()));
    TextTitle note = new TextTitle(legendNote);
    note.setPosition(RectangleEdge.BOTTOM);
    chart.addSubtitle(note);
    return chart;
  }

  private static String threadsLabel(int threads) {
    return threads + (threads == 1 ? " thread" : " threads");
  }

  /** {@code 334K}: short enough to sit inside a bar (the JDK's compact number format). */
  private static NumberFormat compact() {
    NumberFormat format =
        NumberFormat.getCompactNumberInstance(Locale.ROOT, NumberFormat.Style.SHORT);
    format.setMaximumFractionDigits(1);
    return format;
  }
}
