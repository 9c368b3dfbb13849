package org.fencekit.bench;

import java.util.ArrayList;
import java.util.List;

/** A table printed with padded columns, which is also valid Markdown. */
final class Table {

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... header) {
    this.header = List.of(header);
  }

  Table row(String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "a row of " + cells.length + " cells in a table of " + header.size() + " columns");
    }
    rows.add(List.of(cells));
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  /** The table as lines, each starting with {@code indent}. */
  String render(String indent) {
    int[] widths = new int[header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = header.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder s = new StringBuilder();
    line(s, indent, header, widths);
    s.append(indent).append('|');
    for (int c = 0; c < widths.length; c++) {
      s.append(c == 0 ? ":" : "-").append("-".repeat(widths[c])).append(c == 0 ? "-|" : ":|");
    }
    s.append('\n');
    rows.forEach(row -> line(s, indent, row, widths));
    return s.toString();
  }

  private static void line(StringBuilder s, String indent, List<String> cells, int[] widths) {
    s.append(indent).append('|');
    for (int c = 0; c < widths.length; c++) {
      String cell = cells.get(c);
      String pad = " ".repeat(widths[c] - cell.length());
      s.append(' ').append(c == 0 ? cell + pad : pad + cell).append(" |");
    }
    s.append('\n');
  }
}
