package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** The test tree's Python endpoint ({@code src/test/python/shop.py}) as a {@code --launch}. */
final class PythonEndpoint {

  static final Path SHOP = Path.of("src/test/python/shop.py").toAbsolutePath();

  /**
   * The shop's lease, and the runner's {@code --lease}: 5 s, the shop's own default. The shop
   * heartbeats nothing, so a claim holds for one lease from when it was made: in s01 the second
   * delivery (and Stripe's retries of it) must meet the first's live claim, and the first must
   * settle before it lapses. With 2 s a loaded machine was slower than that; the second delivery
   * took over and bought again. The runner's waits are multiples of the lease, so what each
   * scenario proves is unchanged.
   */
  static final int LEASE_SECONDS = 5;

  private static Boolean present;

  private PythonEndpoint() {}

  /**
   * Skips the calling test when {@code python3} is absent, or fails it if {@code
   * FENCEKIT_REQUIRE_BACKENDS=true} (CI).
   */
  static synchronized void requirePython() {
    if (present == null) {
      try {
        Process version =
            new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
        present = version.waitFor(20, TimeUnit.SECONDS) && version.exitValue() == 0;
      } catch (Exception e) {
        present = false;
      }
    }
    if (!present) {
      String message =
          "python3 is not on the PATH: the black-box runner's Python endpoint tests need Python"
              + " 3.11 (standard library only); install python3 to run them";
      if ("true".equals(System.getenv("FENCEKIT_REQUIRE_BACKENDS"))) {
        fail(message + " (FENCEKIT_REQUIRE_BACKENDS=true forbids skipping)");
      }
      Assumptions.abort(message);
    }
    if (!Files.isRegularFile(SHOP)) {
      fail("the Python endpoint is missing at " + SHOP);
    }
  }

  /** The {@code --launch} command running the shop in {@code mode} on {@code port}. */
  static String launch(String mode, int port, Path db) {
    return "exec python3 '"
        + SHOP
        + "' --mode "
        + mode
        + " --port "
        + port
        + " --lease-seconds "
        + LEASE_SECONDS
        + " --provider-url \"$FENCEKIT_PROVIDER_URL\" --db '"
        + db
        + "'";
  }
}
