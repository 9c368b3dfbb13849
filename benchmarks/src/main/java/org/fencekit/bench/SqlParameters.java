package org.fencekit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of a statement's {@code ?} parameters, read from its text, so that a raw baseline binds
 * a store's own SQL by column name and keeps working when the store reorders its columns. An {@code
 * INSERT}'s parameters are named by its column list; any other parameter by the column it is
 * compared with or assigned to ({@code status = ?}), with {@code where.} in front when it follows
 * the {@code WHERE}.
 */
final class SqlParameters {

  private static final Pattern COMMENT = Pattern.compile("--[^\\n]*");
  private static final Pattern INSERT =
      Pattern.compile(
          "INSERT\\s+INTO\\s+\\S+\\s*\\(([^)]*)\\)\\s*VALUES\\s*\\(([^)]*)\\)",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern ASSIGNED =
      Pattern.compile("(?:\\w+\\.)?(\\w+)\\s*=\\s*\\?|\\bWHERE\\b", Pattern.CASE_INSENSITIVE);

  private static final Pattern SELECT =
      Pattern.compile("SELECT\\s+(.*?)\\s+FROM\\b", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  private SqlParameters() {}

  /**
   * The columns a {@code SELECT} returns, in order, by name.
   *
   * @throws IllegalArgumentException if {@code sql} is not a plain {@code SELECT column, ...}
   */
  static List<String> selected(String sql) {
    Matcher select = SELECT.matcher(COMMENT.matcher(sql).replaceAll(""));
    if (!select.find()) {
      throw new IllegalArgumentException("not a SELECT of named columns:\n" + sql);
    }
    List<String> columns = new ArrayList<>();
    for (String column : select.group(1).split(",")) {
      columns.add(column.trim().toLowerCase(Locale.ROOT));
    }
    return columns;
  }

  /**
   * The name of each {@code ?} of {@code sql}, in order.
   *
   * @throws IllegalArgumentException if a {@code ?} has no name this class can read
   */
  static List<String> names(String sql) {
    String text = COMMENT.matcher(sql).replaceAll("");
    long marks = text.chars().filter(c -> c == '?').count();
    List<String> names = new ArrayList<>();
    Matcher insert = INSERT.matcher(text);
    if (insert.find()) {
      String[] columns = insert.group(1).split(",");
      String[] values = insert.group(2).split(",");
      for (int i = 0; i < values.length && i < columns.length; i++) {
        if (values[i].trim().equals("?")) {
          names.add(columns[i].trim().toLowerCase(Locale.ROOT));
        }
      }
    } else {
      boolean where = false;
      Matcher m = ASSIGNED.matcher(text);
      while (m.find()) {
        if (m.group(1) == null) {
          where = true;
        } else {
          names.add((where ? "where." : "") + m.group(1).toLowerCase(Locale.ROOT));
        }
      }
    }
    if (names.size() != marks) {
      throw new IllegalArgumentException(
          "named %s of the %s parameters of this statement; a raw baseline binds only 'column = ?'"
                  .formatted(names.size(), marks)
              + " and INSERT column lists:\n"
              + sql);
    }
    return names;
  }
}
