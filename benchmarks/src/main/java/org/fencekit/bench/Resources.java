package org.fencekit.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Reads the SQL and Lua the raw baselines send: the stores' own resources, and this module's. */
final class Resources {

  private Resources() {}

  /** The text of a classpath resource given by its absolute path. */
  static String text(String path) {
    try (InputStream in = Resources.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource "
                + path
                + " is not on the classpath; rebuild the"
                + " store modules and the benchmarks jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + path, e);
    }
  }
}
