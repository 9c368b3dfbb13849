package org.fencekit.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The listing of the TCK's rules, shipped in this jar as {@value #RESOURCE}: one line per rule, in
 * the order the rules run, with its id (the test method's name), what it holds a store to, and what
 * to check when it fails. Failure messages carry the rule's line; a build of the TCK fails if the
 * listing and the tests disagree.
 */
public final class Rules {

  /** Where the listing is, on the class path. */
  public static final String RESOURCE = "org/fencekit/tck/rules.txt";

  /**
   * One rule.
   *
   * @param id its stable id: the test method's name, {@code group_rule}
   * @param rule what it holds a store to: the test's display name
   * @param check what to look at in the store when the rule fails
   */
  public record Rule(String id, String rule, String check) {}

  private static final Map<String, Rule> ALL = load();

  private Rules() {}

  /** Every rule, in the order they run. */
  public static List<Rule> all() {
    return List.copyOf(ALL.values());
  }

  /** The rule with {@code id}, if the listing has it. */
  public static Optional<Rule> byId(String id) {
    return Optional.ofNullable(ALL.get(id));
  }

  /** The position of {@code id} in the run order, or -1 if it is not a rule. */
  static int position(String id) {
    return new ArrayList<>(ALL.keySet()).indexOf(id);
  }

  /** Reads the listing: {@code id | rule | check} per line; {@code #} starts a comment line. */
  static Map<String, Rule> parse(String listing) {
    Map<String, Rule> rules = new LinkedHashMap<>();
    for (String line : listing.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split(" \\| ", 3);
      if (parts.length != 3) {
        throw new IllegalStateException(
            RESOURCE + " has a line that is not 'id | rule | check': " + line);
      }
      rules.put(parts[0].strip(), new Rule(parts[0].strip(), parts[1].strip(), parts[2].strip()));
    }
    return rules;
  }

  private static Map<String, Rule> load() {
    try (InputStream in = Rules.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            RESOURCE + " is missing from the class path; the store-tck jar is incomplete");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + RESOURCE, e);
    }
  }
}
