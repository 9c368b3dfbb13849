package org.fencekit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What an unlucky operator does to a SQLite store's file under a running process: deletes it with
 * its {@code -wal} and {@code -shm}, or makes it immutable ({@code chattr +i}: e2fsprogs, a file
 * system that keeps attributes, and root, as on the project's machines and CI; a test fails, never
 * skips, without them).
 */
public final class StoreFiles {

  private StoreFiles() {}

  /** The file made immutable until {@link #close()} makes it mutable again. */
  public static final class Immutable implements AutoCloseable {
    private final Path file;

    private Immutable(Path file) {
      this.file = file;
      chattr("+i", file);
    }

    /** Clears the immutable flag ({@code chattr -i}). */
    @Override
    public void close() {
      chattr("-i", file);
    }
  }

  /** Makes {@code file} immutable ({@code chattr +i}) until the answer is closed. */
  public static Immutable immutable(Path file) {
    return new Immutable(file);
  }

  /** Deletes {@code file} and its {@code -wal} and {@code -shm}, as {@code rm orders.db*} would. */
  public static void delete(Path file) {
    try {
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void chattr(String change, Path file) {
    try {
      Process chattr =
          new ProcessBuilder("chattr", change, file.toString()).redirectErrorStream(true).start();
      if (!chattr.waitFor(10, TimeUnit.SECONDS)) {
        chattr.destroyForcibly();
        throw new IllegalStateException(
            "chattr " + change + " " + file + " did not finish in 10 s");
      }
      String said = new String(chattr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (chattr.exitValue() != 0) {
        throw new IllegalStateException(
            "chattr " + change + " " + file + " failed (it needs root and e2fsprogs): " + said);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("chattr is not installed (apt-get install e2fsprogs)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running chattr", e);
    }
  }
}
