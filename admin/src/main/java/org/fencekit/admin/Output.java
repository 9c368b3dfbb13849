package org.fencekit.admin;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Where a subcommand prints: aligned tables and {@code key value} lines for a person, or one JSON
 * document with {@code --json}. Every text passes the store's redaction on its way out.
 */
final class Output {

  private static final Gson GSON =
      new GsonBuilder().serializeNulls().setPrettyPrinting().disableHtmlEscaping().create();
  private static final int MAX_CELL = 60;

  private final PrintWriter out;
  private final boolean json;
  private final UnaryOperator<String> redact;

  Output(PrintWriter out, boolean json, UnaryOperator<String> redact) {
    this.out = out;
    this.json = json;
    this.redact = redact;
  }

  /** Whether JSON was asked for. */
  boolean json() {
    return json;
  }

  /** Prints {@code document} as JSON (maps, lists, strings, numbers, booleans, nulls). */
  void printJson(Object document) {
    line(GSON.toJson(document));
  }

  /** Prints one line of text. */
  void line(String text) {
    out.println(redact.apply(text));
    out.flush();
  }

  /** Prints {@code key value} lines, the keys aligned. */
  void fields(Map<String, String> fields) {
    int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0);
    for (Map.Entry<String, String> field : fields.entrySet()) {
      out.println(
          redact.apply(
              pad(field.getKey(), width) + "  " + oneLine(field.getValue(), Integer.MAX_VALUE)));
    }
    out.flush();
  }

  /** Prints a table: a header row, then one row per item, columns aligned, long cells cut. */
  void table(List<String> headers, List<List<String>> rows) {
    List<List<String>> cells = new ArrayList<>();
    cells.add(headers);
    for (List<String> row : rows) {
      cells.add(row.stream().map(cell -> oneLine(cell, MAX_CELL)).toList());
    }
    int[] widths = new int[headers.size()];
    for (List<String> row : cells) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : cells) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        line.append(i == widths.length - 1 ? row.get(i) : pad(row.get(i), widths[i]) + "  ");
      }
      out.println(redact.apply(line.toString().stripTrailing()));
    }
    out.flush();
  }

  private static String pad(String text, int width) {
    return text + " ".repeat(Math.max(0, width - text.length()));
  }

  /** {@code text} on one line (line breaks shown as {@code ⏎}), cut to {@code max} chars. */
  private static String oneLine(String text, int max) {
    if (text == null) {
      return "-";
    }
    String line =
        text.replace("\r\n", "⏎").replace('\n', '⏎').replace('\r', '⏎').replace('\t', ' ');
    return line.length() <= max ? line : line.substring(0, max - 1) + "…";
  }
}
