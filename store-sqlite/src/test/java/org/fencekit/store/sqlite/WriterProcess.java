package org.fencekit.store.sqlite;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.testsupport.ChildJvm;

/**
 * A JVM that writes to a SQLite file as fast as it can until it is killed: the writer a fault test
 * kills with SIGKILL mid-transaction. Usage: {@code WriterProcess <file> <prefix>}; prints {@code
 * writing} after its first commit.
 */
public final class WriterProcess {

  private WriterProcess() {}

  /**
   * Claims and completes fresh orders until killed. A store that answers busy (the parent's load
   * can hold the write lock past busyTimeout on a slow machine) is asked again, and a store that
   * could not open is opened again: this writer exists to be killed mid-transaction, not to fail
   * first. What failed is printed until the first commit, so that a writer that never writes says
   * why.
   */
  public static void main(String[] args) throws InterruptedException {
    SqliteOrderStore store = null;
    while (store == null) {
      try {
        store = SqliteOrderStore.builder(Path.of(args[0])).quickCheck(false).build();
      } catch (StoreUnavailableException e) {
        again(e);
      }
    }
    boolean writing = false;
    for (long i = 0; ; i++) {
      String id = args[1] + i;
      try {
        ClaimResult claim =
            store.claim(new OrderSnapshot(id, "esim", 1, null, 100, "usd"), Duration.ofMinutes(1));
        if (claim instanceof ClaimResult.Claimed claimed) {
          store.complete(id, claimed.claimId(), new Item("child-" + i, "x".repeat(500)));
          if (!writing) {
            writing = true;
            System.out.println("writing");
            System.out.flush();
          }
        }
      } catch (StoreUnavailableException e) {
        if (!writing) {
          again(e);
        }
      }
    }
  }

  private static void again(StoreUnavailableException e) throws InterruptedException {
    System.out.println("again after: " + e.getMessage());
    System.out.flush();
    Thread.sleep(10);
  }

  /** Starts a writer on {@code file} and waits until it has committed once. */
  static Process start(Path file, String prefix) throws IOException, InterruptedException {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(ChildJvm.command());
    command.addAll(
        List.of(
            "-Xmx96m", "-cp", classpath, WriterProcess.class.getName(), file.toString(), prefix));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] expected = "writing".getBytes();
    int matched = 0;
    StringBuilder printed = new StringBuilder();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (matched < expected.length) {
      if (System.nanoTime() > deadline || !process.isAlive()) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "the writer process did not start writing; it printed: " + printed);
      }
      int b = process.getInputStream().read();
      if (b < 0) {
        continue;
      }
      printed.append((char) b);
      if (printed.length() > 8000) {
        printed.delete(0, printed.length() - 4000);
      }
      matched = b == expected[matched] ? matched + 1 : (b == expected[0] ? 1 : 0);
    }
    return process;
  }
}
