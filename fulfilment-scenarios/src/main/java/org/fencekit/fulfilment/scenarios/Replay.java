package org.fencekit.fulfilment.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * The steps of a run as Java statements, so a failed scenario can be pasted as a JUnit test into
 * the user's subclass of {@link FulfilmentScenarios} and replayed.
 */
final class Replay {

  private final List<String> lines = new ArrayList<>();

  synchronized void line(String statement) {
    lines.add(statement);
  }

  /** The replay as a test method named {@code replay_<id>}. */
  synchronized String test(String id) {
    StringBuilder out = new StringBuilder();
    out.append("  @Test\n");
    out.append("  void replay_").append(id).append("() {\n");
    out.append("    try (ScenarioRun run = newRun(\"").append(id).append("\")) {\n");
    for (String line : lines) {
      out.append("      ").append(line).append('\n');
    }
    out.append("    }\n");
    out.append("  }\n");
    return out.toString();
  }

  /** A Java string literal. */
  static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
