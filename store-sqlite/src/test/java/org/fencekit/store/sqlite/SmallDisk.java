package org.fencekit.store.sqlite;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs mounted for one test, to fill up; the test is skipped, saying why, where it cannot
 * mount one (not root, no mount permission in a container).
 */
final class SmallDisk implements AutoCloseable {

  private final Path dir;
  private final Path filler;

  private SmallDisk(Path dir) {
    this.dir = dir;
    this.filler = dir.resolve("filler");
  }

  /** Mounts a tmpfs of {@code megabytes} on a new directory, or skips the test. */
  static SmallDisk mount(int megabytes) throws IOException {
    Path dir = Files.createTempDirectory("fencekit-small-disk-");
    String failure =
        run(
            List.of(
                "mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", dir.toString()));
    if (failure != null) {
      Files.deleteIfExists(dir);
      Assumptions.abort(
          "cannot mount a " + megabytes + " MB tmpfs to fill up (" + failure + "); run as root");
    }
    return new SmallDisk(dir);
  }

  /** The mounted directory. */
  Path dir() {
    return dir;
  }

  /** Fills the disk to the last byte; returns how many bytes the filler took. */
  long fill() {
    long written = 0;
    byte[] block = new byte[4096];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
        written += block.length;
      }
    } catch (IOException full) {
      // no space left on the device: that is the point
    }
    try (OutputStream out =
        Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
      while (true) {
        out.write(0);
        out.flush();
        written++;
      }
    } catch (IOException full) {
      return written;
    }
  }

  /** Frees what {@link #fill()} took. */
  void free() throws IOException {
    Files.deleteIfExists(filler);
  }

  @Override
  public void close() throws IOException {
    run(List.of("umount", "-l", dir.toString()));
    Files.deleteIfExists(dir);
  }

  /** Runs a command; null if it succeeded, else why not. */
  private static String run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return String.join(" ", command) + " did not finish";
      }
      String out = new String(process.getInputStream().readAllBytes()).trim();
      return process.exitValue() == 0 ? null : out.isEmpty() ? "exit " + process.exitValue() : out;
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }
}
