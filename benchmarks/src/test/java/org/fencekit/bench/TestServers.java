package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/** The servers the environment names, for the tests that need one. */
final class TestServers {

  private TestServers() {}

  /**
   * The checked setting of {@code server}; skips the test when its variable is unset, or fails it
   * when {@code FENCEKIT_REQUIRE_BACKENDS=true} (as CI sets it).
   */
  static String require(Server server) {
    String value = server.lookup(System.getenv()).orElse(null);
    if (value == null) {
      String why = server.variable() + " is not set (e.g. " + server.example() + ")";
      if ("true".equals(System.getenv("FENCEKIT_REQUIRE_BACKENDS"))) {
        fail("FENCEKIT_REQUIRE_BACKENDS=true but " + why);
      }
      Assumptions.abort(why + ": skipped");
    }
    return value;
  }

  /** The environment with {@code variables} removed. */
  static Map<String, String> without(String... variables) {
    Map<String, String> env = new java.util.HashMap<>(System.getenv());
    for (String variable : variables) {
      env.remove(variable);
    }
    return env;
  }
}
