package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
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

  /** The characters a layout rule is given under {@code suite}. */
  private static List<String> given(OrderStoreTck suite) {
    List<List<String>> given = new ArrayList<>();
    InputRules.withLayoutCharacters(suite, given::add);
    assertEquals(1, given.size(), "the rule runs once");
    return given.get(0);
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
    assertEquals(InputRules.LAYOUT_CHARACTERS, given(all));
  }

  @Test
  @DisplayName("fewer: that many distinct characters in the list's order, the same for one seed")
  void aSampleBySeed() {
    List<String> sample = given(suite(6, 42));
    assertEquals(6, new HashSet<>(sample).size(), sample.toString());
    List<String> inListOrder =
        InputRules.LAYOUT_CHARACTERS.stream().filter(sample::contains).toList();
    assertEquals(inListOrder, sample);
    assertEquals(sample, given(suite(6, 42)));
  }

  @Test
  @DisplayName("over runs with different seeds, every character is drawn")
  void everyCharacterOverSeeds() {
    Set<String> drawn = new HashSet<>();
    for (long seed = 0; seed < 200; seed++) {
      drawn.addAll(given(suite(6, seed)));
    }
    assertEquals(new HashSet<>(InputRules.LAYOUT_CHARACTERS), drawn);
    assertEquals(1, given(suite(0, 1)).size(), "at least one character");
  }

  @Test
  @DisplayName("a sampled rule's failure names the characters and the seed that draws them again")
  void aFailureNamesTheSeed() {
    List<String> sample = given(suite(6, 7));
    AssertionError original = new AssertionError("order x: its own orphan");
    AssertionError failure =
        assertThrows(
            AssertionError.class,
            () ->
                InputRules.withLayoutCharacters(
                    suite(6, 7),
                    characters -> {
                      throw original;
                    }));
    assertTrue(failure.getMessage().contains(sample.toString()), failure.getMessage());
    assertTrue(failure.getMessage().contains("-Dfencekit.tck.seed=7"), failure.getMessage());
    assertTrue(failure.getMessage().endsWith(original.getMessage()), failure.getMessage());
    assertSame(original, failure.getCause());
  }
}
