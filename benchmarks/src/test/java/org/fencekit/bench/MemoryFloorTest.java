package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The memory floor fences and keeps its index of held claims exact. */
class MemoryFloorTest {

  @Test
  @DisplayName("a claim + complete leaves no held claim in the index")
  void claimComplete() {
    MemoryFloor floor = new MemoryFloor();
    floor.claimComplete("a");
    assertEquals(0, floor.heldCount());
    assertNull(floor.claim("a", System.currentTimeMillis() + 10_000_000, 1_000), "settled");
  }

  @Test
  @DisplayName("a held claim refuses another; once its lease is over it is stuck, then fenced off")
  void fencing() {
    MemoryFloor floor = new MemoryFloor();
    MemoryFloor.Row first = floor.claim("a", 1_000, 500);
    assertNotNull(first);
    assertEquals(1, first.fence());
    assertNull(floor.claim("a", 1_400, 500), "held until 1,500");
    assertEquals(List.of(), floor.stuck(1_499, 10));
    assertEquals(List.of("a"), floor.stuck(1_500, 10));
    MemoryFloor.Row second = floor.claim("a", 1_600, 500);
    assertNotNull(second);
    assertEquals(2, second.fence());
    assertEquals(1, floor.heldCount(), "the first claim's key moved, not added");
    assertEquals(List.of(), floor.stuck(1_600, 10));
    assertFalse(floor.complete("a", first), "the stale holder is fenced off");
    assertTrue(floor.complete("a", second));
    assertEquals(0, floor.heldCount());
    assertEquals(List.of(), floor.stuck(10_000, 10));
  }
}
