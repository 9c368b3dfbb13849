package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The shipped rules listing says what the tests say: one line per rule, in the groups' run order
 * and each group's source order, with the test's display name and its javadoc's "If this fails,
 * check" sentence. On a mismatch the listing the sources call for is written to {@code
 * target/rules.txt}; {@code -Dfencekit.tck.writeRules=true} writes it over the resource instead.
 */
class RulesListingTest {

  private static final Path SOURCES = Path.of("src/main/java/org/fencekit/tck");
  private static final Path RESOURCE = Path.of("src/main/resources").resolve(Rules.RESOURCE);
  private static final Pattern RULE =
      Pattern.compile(
          "/\\*\\*((?:(?!\\*/).)*?)\\*/\\s*@Test\\s*@DisplayName\\(\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*\\)"
              + "\\s*void ([a-z]+_[A-Za-z0-9]+)\\(",
          Pattern.DOTALL);

  /** OrderStoreTck's nested classes, in the order they run. */
  private static List<Class<?>> nested() {
    return Stream.of(OrderStoreTck.class.getDeclaredClasses())
        .filter(type -> type.isAnnotationPresent(Nested.class))
        .sorted(Comparator.comparingInt(type -> type.getAnnotation(Order.class).value()))
        .toList();
  }

  /** The groups in the order they run: the classes OrderStoreTck's nested classes extend. */
  private static List<Class<?>> groups() {
    return nested().stream().<Class<?>>map(Class::getSuperclass).toList();
  }

  /**
   * The heading a group's rules are listed under: the class below the fixture that it extends (the
   * admin groups share {@link AdminRules}), else the group itself.
   */
  private static String heading(Class<?> group) {
    return group.getSuperclass() == TckFixture.class
        ? group.getSimpleName()
        : group.getSuperclass().getSimpleName();
  }

  /** javadoc text as plain words: tags and markup removed, one space between words. */
  private static String plain(String javadoc) {
    String text = javadoc.replaceAll("(?m)^\\s*\\*", " ");
    text = text.replaceAll("\\{@(?:code|link|linkplain) #?([^}]*)}", "$1");
    text = text.replaceAll("<[^>]+>", " ");
    return text.replaceAll("\\s+", " ").strip();
  }

  /** The listing the sources call for. */
  private static String expectedListing() throws IOException {
    StringBuilder out =
        new StringBuilder()
            .append(
                "# The rules of the fencekit TCK (org.fencekit.tck.OrderStoreTck), in the order")
            .append(" they run.\n")
            .append("# One line per rule: id | what it holds a store to | if it fails, check ...\n")
            .append(
                "# The contract they test ships beside this file: org/fencekit/tck/contract.md\n");
    String lastHeading = null;
    for (Class<?> group : groups()) {
      String source =
          Files.readString(
              SOURCES.resolve(group.getSimpleName() + ".java"), StandardCharsets.UTF_8);
      if (!heading(group).equals(lastHeading)) {
        lastHeading = heading(group);
        out.append("\n# ").append(lastHeading).append('\n');
      }
      Matcher rule = RULE.matcher(source);
      while (rule.find()) {
        String doc = plain(rule.group(1));
        int at = doc.indexOf("If this fails, check ");
        assertTrue(
            at >= 0,
            () -> rule.group(3) + "'s javadoc does not end with \"If this fails, check ...\"");
        out.append(rule.group(3))
            .append(" | ")
            .append(rule.group(2).replace("\\\"", "\""))
            .append(" | ")
            .append(doc.substring(at + "If this fails, check ".length()))
            .append('\n');
      }
    }
    return out.toString();
  }

  @Test
  @DisplayName("the shipped listing is the one the rules' names, display names and javadoc give")
  void listingMatchesSources() throws IOException {
    String expected = expectedListing();
    String actual = Files.readString(RESOURCE, StandardCharsets.UTF_8);
    if (!expected.equals(actual)) {
      if (Boolean.getBoolean("fencekit.tck.writeRules")) {
        Files.writeString(RESOURCE, expected, StandardCharsets.UTF_8);
      } else {
        Path proposed = Path.of("target/rules.txt");
        Files.writeString(proposed, expected, StandardCharsets.UTF_8);
        assertEquals(
            expected,
            actual,
            RESOURCE
                + " is out of date: the sources call for "
                + proposed
                + "; run the store-tck tests with -Dfencekit.tck.writeRules=true to update it");
      }
    }
  }

  @Test
  @DisplayName("every test of the TCK is in the listing under its method name, and nothing else is")
  void everyTestListedOnce() {
    Map<String, String> tests = new LinkedHashMap<>();
    List<Class<?>> runs = new ArrayList<>(nested());
    runs.add(OrderStoreTck.class);
    for (Class<?> run : runs) {
      for (Class<?> type = run; type != Object.class; type = type.getSuperclass()) {
        for (Method method : type.getDeclaredMethods()) {
          if (method.isAnnotationPresent(Test.class)) {
            DisplayName name = method.getAnnotation(DisplayName.class);
            assertFalse(name == null, () -> method + " has no @DisplayName stating its rule");
            tests.put(method.getName(), name.value());
          }
        }
      }
    }
    Map<String, String> listed = new LinkedHashMap<>();
    Rules.all().forEach(rule -> listed.put(rule.id(), rule.rule()));
    assertEquals(new java.util.TreeMap<>(tests), new java.util.TreeMap<>(listed));
    for (String id : listed.keySet()) {
      assertTrue(id.matches("[a-z]+_[A-Za-z0-9]+"), () -> id + " is not group_rule");
    }
  }

  @Test
  @DisplayName("the contract ships in the jar, and no TCK source points outside it")
  void contractShips() throws IOException {
    assertFalse(
        Rules.class.getClassLoader().getResource("org/fencekit/tck/contract.md") == null,
        "org/fencekit/tck/contract.md is not on the class path");
    try (var files = Files.list(SOURCES)) {
      for (Path file : files.toList()) {
        String source = Files.readString(file, StandardCharsets.UTF_8);
        assertFalse(
            source.contains("CONTRACT.md") || source.contains("../"),
            () -> file + " cites a document outside the jar");
      }
    }
  }

  @Test
  @DisplayName("the listing starts with the basic rules, so a broken clock shows up first")
  void basicRulesFirst() {
    List<Rules.Rule> all = Rules.all();
    int lastBasic = -1;
    int firstOther = Integer.MAX_VALUE;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).id().startsWith("basic_")) {
        lastBasic = i;
      } else {
        firstOther = Math.min(firstOther, i);
      }
    }
    assertTrue(lastBasic >= 0 && lastBasic < firstOther, () -> "basic rules are not first");
  }
}
