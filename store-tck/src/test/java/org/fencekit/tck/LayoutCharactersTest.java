package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which layout characters the two layout rules put in ids ({@code layoutCharacters()}). */
class LayoutCharactersTest {

  /** A suite that only answers the two knobs; its rules never run here. */
  private static OrderStoreTck suite(int count, long seed) {
    return new OrderStoreTck() {
      @Override
      protected OrderStore newStore(TestClock clock) {
        throw new UnsupportedOperationException("no store: only the knobs are asked");
      }

      @Override
      protected int layoutCharacters() {
        return count;
      }

      @Override
      protected long seed() {
        return seed;
      }
    };
  }

  @Test
  @DisplayName("by default every layout character, in the list's order")
  void allByDefault() {
    OrderStoreTck all =
        new OrderStoreTck() {
          @Override
          protected OrderStore newStore(TestClock clock) {
            throw new UnsupportedOperationException("no store: only the knobs are asked");
          }
        };
    assertEquals(InputRules.LAYOUT_CHARACTERS, InputRules.layoutCharacters(all));
  }

  @Test
  @DisplayName("fewer: that many distinct characters in the list's order, the same for one seed")
  void aSampleBySeed() {
    List<String> sample = InputRules.layoutCharacters(suite(6, 42));
    assertEquals(6, new HashSet<>(sample).size(), sample.toString());
    List<String> inListOrder =
        InputRules.LAYOUT_CHARACTERS.stream().filter(sample::contains).toList();
    assertEquals(inListOrder, sample);
    assertEquals(sample, InputRules.layoutCharacters(suite(6, 42)));
  }

  @Test
  @DisplayName("over runs with different seeds, every character is drawn")
  void everyCharacterOverSeeds() {
    Set<String> drawn = new HashSet<>();
    for (long seed = 0; seed < 200; seed++) {
      drawn.addAll(InputRules.layoutCharacters(suite(6, seed)));
    }
    assertEquals(new HashSet<>(InputRules.LAYOUT_CHARACTERS), drawn);
    assertTrue(InputRules.layoutCharacters(suite(0, 1)).size() == 1, "at least one character");
  }
}
