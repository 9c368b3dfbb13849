package org.fencekit.store;

import java.util.List;
import org.fencekit.store.spi.Validate;

/**
 * One page of a listing of {@link OrderStoreAdmin}, oldest first.
 *
 * <p>Paging is by position, not by offset: {@code nextCursor} holds the sort key of the last item,
 * and the next page starts strictly after it, so an item added or removed meanwhile never makes the
 * listing skip or repeat another one.
 *
 * @param items the items of this page, at most the page size asked for
 * @param nextCursor an opaque cursor for the next page, or {@code null} if this page is the last
 *     one
 * @param <T> what is listed
 */
public record Page<T>(List<T> items, String nextCursor) {

  /** Copies the items; checks that none is null. */
  public Page {
    items = List.copyOf(Validate.notNull("items", items));
  }

  /** Whether there may be more items after this page. */
  public boolean hasNext() {
    return nextCursor != null;
  }
}
