package org.fencekit.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Page;
import picocli.CommandLine.Option;

/**
 * How a listing pages: one page of {@code --page-size} from {@code --cursor}, or with {@code --all}
 * every page after it. A page that has more after it ends with the cursor to pass next.
 */
final class PageOptions {

  @Option(
      names = "--page-size",
      paramLabel = "N",
      defaultValue = "50",
      description = "how many per page, 1 to " + OrderStoreAdmin.MAX_PAGE_SIZE + " (default: 50)")
  int pageSize;

  @Option(
      names = "--cursor",
      paramLabel = "CURSOR",
      description = "start after the page that printed this cursor")
  String cursor;

  @Option(names = "--all", description = "every page, not just one")
  boolean all;

  /**
   * Prints the listing and returns {@link ExitCode#FOUND} if it holds anything, else {@link
   * ExitCode#OK}.
   */
  <T> int list(
      Output output,
      Function<String, Page<T>> source,
      List<String> columns,
      Function<T, List<String>> row,
      Function<T, Map<String, Object>> json,
      String what) {
    // what: the item's name in the singular, e.g. "stuck order"
    List<T> items = new ArrayList<>();
    Page<T> page = source.apply(cursor);
    items.addAll(page.items());
    while (all && page.hasNext()) {
      page = source.apply(page.nextCursor());
      items.addAll(page.items());
    }
    if (output.json()) {
      output.printJson(Views.page(items.stream().map(json).toList(), page));
    } else if (items.isEmpty()) {
      output.line("no " + plural(what) + (cursor == null ? "" : " after this cursor"));
    } else {
      output.table(columns, items.stream().map(row).toList());
      output.line("");
      output.line(
          items.size()
              + " "
              + (items.size() == 1 ? what : plural(what))
              + (page.hasNext()
                  ? "; more after --cursor " + page.nextCursor() + " (or list them all with --all)"
                  : ""));
    }
    return items.isEmpty() ? ExitCode.OK : ExitCode.FOUND;
  }

  /** {@code orphans}, {@code mismatches}: the plural of an item's name. */
  private static String plural(String what) {
    return what + (what.endsWith("ch") ? "es" : "s");
  }
}
