package org.fencekit.server;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the server logs (slf4j-simple writes to {@code System.err}, looked up at each line) while
 * the capture is open, still passed on to the real {@code System.err}.
 */
final class CapturedLog implements AutoCloseable {

  private final PrintStream original = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  private CapturedLog() {}

  /** Starts capturing. */
  static CapturedLog start() {
    CapturedLog log = new CapturedLog();
    System.setErr(
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) {
                synchronized (log.captured) {
                  log.captured.write(b);
                }
                log.original.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                synchronized (log.captured) {
                  log.captured.write(b, off, len);
                }
                log.original.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8));
    return log;
  }

  /** Everything logged so far. */
  String text() {
    synchronized (captured) {
      return captured.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
