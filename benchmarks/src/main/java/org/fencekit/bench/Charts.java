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
import java.util.function.BiFunction;
import org.fencekit.bench.Figure.Ratio;
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
 * The main job's two charts, drawn with JFreeChart: horizontal bars, one group per store, each bar
 * labelled with its figure at the bar's base on a patch that hides the whisker behind it (so no
 * line runs through a label), the whiskers spanning JMH's 99.9% confidence interval, and the
 * machine, the date and the profile under the title.
 *
 * <ul>
 *   <li>{@code throughput.png}: claim + complete ops/s of each store beside its raw baseline, per
 *       thread count, on a logarithmic axis (the stores span three orders of magnitude);
 *   <li>{@code store-over-raw.png}: each store's throughput over its raw baseline's, per thread
 *       count, on a linear axis with a line at 1.0, so the cost of the store reads directly.
 * </ul>
 */
final class Charts {

  /** The throughput chart's file name. */
  static final String THROUGHPUT = "throughput.png";

  /** The store / raw chart's file name. */
  static final String STORE_OVER_RAW = "store-over-raw.png";

  private static final int WIDTH = 1200;
  private static final int BAR_HEIGHT = 19;
  // mid tones for the stores, pale ones for their baselines: black labels read on both
  private static final Color[] STORE_COLORS = {
    new Color(0x5B9BD5), new Color(0xEE9A4D), new Color(0x70BF6E), new Color(0xA98BC9)
  };
  private static final Color[] RAW_COLORS = {
    new Color(0xD3E4F4), new Color(0xFBE1C6), new Color(0xD6EDD5), new Color(0xE6DCF0)
  };
  private static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

  private Charts() {}

  /**
   * What the charts show: for each store and thread count, the store's claim + complete throughput
   * and its raw baseline's.
   *
   * @param stores the stores, in chart order
   * @param threads the thread counts, in chart order
   * @param figures (store, threads) to {store figure, raw baseline figure}
   */
  record Bars(
      List<StoreType> stores,
      List<Integer> threads,
      BiFunction<StoreType, Integer, Figure[]> figures) {

    /** The bars of a comparison's jobs. */
    static Bars of(List<StoreType> stores, List<Comparison.Job> jobs, List<Integer> threads) {
      return new Bars(
          stores,
          threads,
          (store, t) ->
              new Figure[] {
                Figure.of(Report.find(jobs, store, Comparison.Kind.THROUGHPUT, null, t)),
                Figure.of(Report.find(jobs, store, Comparison.Kind.RAW, null, t))
              });
    }
  }

  /** Writes both charts into {@code dir}. */
  static void write(Path dir, Run run, Bars bars) throws IOException {
    System.setProperty("java.awt.headless", "true");
    save(dir.resolve(THROUGHPUT), throughput(run, bars), bars.stores(), 2 * bars.threads().size());
    save(
        dir.resolve(STORE_OVER_RAW), storeOverRaw(run, bars), bars.stores(), bars.threads().size());
  }

  private static void save(Path file, JFreeChart chart, List<StoreType> stores, int barsPerStore)
      throws IOException {
    int height = 230 + Math.max(1, stores.size()) * (barsPerStore * BAR_HEIGHT + 22);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, height);
  }

  static JFreeChart throughput(Run run, Bars bars) {
    List<Integer> threads = bars.threads();
    DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
    Map<String, String> labels = new HashMap<>();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (int i = 0; i < threads.size(); i++) {
      int t = threads.get(i);
      String storeSeries = threadsLabel(t) + ", store";
      String rawSeries = threadsLabel(t) + ", raw baseline";
      for (StoreType store : bars.stores()) {
        Figure ops = bars.figures().apply(store, t)[0];
        Figure raw = bars.figures().apply(store, t)[1];
        for (String series : List.of(storeSeries, rawSeries)) {
          Figure f = series == storeSeries ? ops : raw;
          if (f.measured() && f.score() > 0) {
            // a whisker below zero means nothing on a log axis: it stops just above it
            Double error = f.errorKnown() ? Math.min(f.error(), f.score() * 0.99) : null;
            data.add(Double.valueOf(f.score()), error, series, store.label());
            labels.put(series + "|" + store.label(), compact(f));
            min = Math.min(min, f.score() - (error == null ? 0 : error));
            max = Math.max(max, f.score() + (error == null ? 0 : error));
          } else {
            data.add((Number) null, (Number) null, series, store.label());
          }
        }
      }
    }
    LogAxis axis = new LogAxis("claim + complete of fresh orders, ops/s (logarithmic)");
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
      renderer.setSeriesPaint(2 * i + 1, RAW_COLORS[i % RAW_COLORS.length]);
    }
    return chart(
        "fencekit: claim + complete throughput, each store beside its raw baseline",
        "raw baseline: the store's own SQL or Lua through the bare driver (JDBC, Jedis EVALSHA,"
            + " ConcurrentHashMap.compute); bars: JMH's mean; whiskers: its 99.9% confidence"
            + " interval",
        run,
        data,
        axis,
        renderer);
  }

  static JFreeChart storeOverRaw(Run run, Bars bars) {
    List<Integer> threads = bars.threads();
    DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
    Map<String, String> labels = new HashMap<>();
    double max = 1.1;
    for (int t : threads) {
      for (StoreType store : bars.stores()) {
        Ratio ratio = bars.figures().apply(store, t)[0].over(bars.figures().apply(store, t)[1]);
        if (ratio.measured()) {
          Double error =
              ratio.intervalKnown() && !Double.isInfinite(ratio.high()) ? ratio.halfWidth() : null;
          data.add(Double.valueOf(ratio.value()), error, threadsLabel(t), store.label());
          labels.put(threadsLabel(t) + "|" + store.label(), Report.storeOverRaw(ratio));
          max = Math.max(max, ratio.value() + (error == null ? 0 : error));
        } else {
          data.add((Number) null, (Number) null, threadsLabel(t), store.label());
        }
      }
    }
    NumberAxis axis = new NumberAxis("store ops/s over its raw baseline's, same thread count");
    axis.setRange(0, Math.min(3, max * 1.08));
    StatisticalBarRenderer renderer = renderer(labels);
    for (int i = 0; i < threads.size(); i++) {
      renderer.setSeriesPaint(i, STORE_COLORS[i % STORE_COLORS.length]);
    }
    JFreeChart chart =
        chart(
            "fencekit: each store's throughput over its raw baseline's (1.0 = no cost)",
            "claim + complete of fresh orders; whiskers: the interval JMH's errors allow; "
                + Ratio.NOISE
                + ": the interval includes 1.0, so this run cannot tell the store from its"
                + " baseline",
            run,
            data,
            axis,
            renderer);
    ValueMarker parity = new ValueMarker(1.0, Color.BLACK, new BasicStroke(1.5f));
    parity.setLabel("1.0 = as fast as the raw baseline");
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

  /** {@code 334K ±9.2K}: short enough to sit inside a bar (the JDK's compact number format). */
  static String compact(Figure f) {
    NumberFormat format =
        NumberFormat.getCompactNumberInstance(Locale.ROOT, NumberFormat.Style.SHORT);
    format.setMaximumFractionDigits(1);
    return format.format(f.score()) + (f.errorKnown() ? " ±" + format.format(f.error()) : " ±?");
  }
}
