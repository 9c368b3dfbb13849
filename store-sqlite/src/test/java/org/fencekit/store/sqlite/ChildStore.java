package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fencekit.testsupport.ChildJvm;

/**
 * A {@link StoreProcess} running in a child JVM on the same file, for the cross-process tests.
 * Every wait is bounded, and {@link #close()} always ends the process.
 */
final class ChildStore implements AutoCloseable {

  private static final String EOF = "\u0000eof";

  private final Process process;
  private final Path stderr;
  private final Writer stdin;
  private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();

  private ChildStore(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  stdout.add(line);
                }
              } catch (IOException e) {
                stdout.add("error reading the child's stdout: " + e);
              } finally {
                stdout.add(EOF);
              }
            },
            "child-store-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a child JVM with a store on {@code file} and waits until it is open.
   *
   * @param dir where the child's stderr is kept
   */
  static ChildStore start(Path file, Path dir) throws IOException, InterruptedException {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path stderr = Files.createTempFile(dir, "child-", ".stderr");
    List<String> command = new ArrayList<>(ChildJvm.command());
    command.addAll(
        List.of("-Xmx128m", "-cp", classpath, StoreProcess.class.getName(), file.toString()));
    Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    ChildStore child = new ChildStore(process, stderr);
    try {
      assertEquals("ready", child.next(Duration.ofSeconds(60)), "the child store did not start");
    } catch (AssertionError | RuntimeException e) {
      child.close();
      throw e;
    }
    return child;
  }

  /** Sends one command and returns the child's one-line answer. */
  String send(String command, Duration timeout) throws IOException, InterruptedException {
    stdin.write(command + "\n");
    stdin.flush();
    return next(timeout);
  }

  private String next(Duration timeout) throws InterruptedException {
    String line = stdout.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null) {
      fail("the child store did not answer within " + timeout + "; its stderr: " + stderr());
    }
    if (line.equals(EOF)) {
      fail("the child store exited; its stderr: " + stderr());
    }
    return line;
  }

  private String stderr() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** Asks the child to quit, and ends it if it does not within a few seconds. */
  @Override
  public void close() {
    try {
      stdin.write("quit\n");
      stdin.flush();
    } catch (IOException e) {
      // the child is gone already
    }
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
