package org.fencekit.testsupport;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.fencekit.store.spi.Credentials;

/**
 * One kind of server the tests need, found once per JVM in this order:
 *
 * <ol>
 *   <li>its environment variable; a malformed value, or a server that does not answer there, fails
 *       every test that asks (you asked for it), naming the variable and showing a good value;
 *   <li>else a Testcontainers container, when Docker is available;
 *   <li>else none: a test that asks is skipped ({@link BackendSkipped}) with a message saying how
 *       to enable it, or fails if {@value #REQUIRE_VARIABLE} is {@code true}.
 * </ol>
 */
final class Backend {

  /** The environment variable that turns a missing server into a failure. */
  static final String REQUIRE_VARIABLE = "FENCEKIT_REQUIRE_BACKENDS";

  private final String name;
  private final String variable;
  private final String example;
  private final String hint;
  private final String image;
  private final Function<String, String> environment;
  private final UnaryOperator<String> check;
  private final Supplier<Optional<String>> container;

  private boolean resolved;
  private String address;
  private String unavailable;
  private String error;
  private Throwable errorCause;

  /**
   * @param name what the server is, for messages ("PostgreSQL")
   * @param variable the environment variable naming it
   * @param example a good value of the variable
   * @param hint how to get such a server, or an empty string
   * @param image the image Testcontainers would run, or {@code null} for a server tests never start
   *     in a container
   * @param environment the environment ({@code System::getenv}, or a map in tests)
   * @param check turns the variable's value into the address tests use; throws {@link
   *     IllegalArgumentException} saying what is wrong with a malformed value and {@link
   *     IllegalStateException} with the server's answer when none answers there
   * @param container starts a container and returns its address, or returns empty without Docker
   */
  Backend(
      String name,
      String variable,
      String example,
      String hint,
      String image,
      Function<String, String> environment,
      UnaryOperator<String> check,
      Supplier<Optional<String>> container) {
    this.name = name;
    this.variable = variable;
    this.example = example;
    this.hint = hint;
    this.image = image;
    this.environment = environment;
    this.check = check;
    this.container = container;
  }

  /** What the server is, e.g. {@code PostgreSQL}. */
  String name() {
    return name;
  }

  /** The environment variable naming the server. */
  String variable() {
    return variable;
  }

  /**
   * The same kind of server, found afresh in {@code environment} (a map in tests) else by {@code
   * container}.
   */
  Backend in(Function<String, String> environment, Supplier<Optional<String>> container) {
    return new Backend(name, variable, example, hint, image, environment, check, container);
  }

  /** How to make this server available, as one clause. */
  String howToEnable() {
    return "set "
        + variable
        + "="
        + example
        + (hint.isEmpty() ? "" : " (" + hint + ")")
        + (image == null ? "" : ", or start Docker so Testcontainers can run " + image);
  }

  /**
   * Whether there is a server; never skips.
   *
   * @throws IllegalStateException if the variable is malformed or names a server that does not
   *     answer, or if there is none and {@value #REQUIRE_VARIABLE} is {@code true}
   */
  synchronized boolean available() {
    resolve();
    if (error != null) {
      throw new IllegalStateException(error, errorCause);
    }
    if (address == null && required()) {
      throw new IllegalStateException(
          name
              + " tests need a server and "
              + REQUIRE_VARIABLE
              + "=true forbids skipping them: "
              + unavailable
              + ". To run them, "
              + howToEnable()
              + ".");
    }
    return address != null;
  }

  /**
   * The server's address; skips the calling test with {@link BackendSkipped} if there is none.
   *
   * @throws IllegalStateException as {@link #available()}
   */
  synchronized String address() {
    if (available()) {
      return address;
    }
    throw new BackendSkipped(
        this,
        name
            + " tests skipped: "
            + unavailable
            + ". To run them, "
            + howToEnable()
            + "; set "
            + REQUIRE_VARIABLE
            + "=true to fail instead of skipping.");
  }

  /** The address if this JVM has already found a server, without looking for one. */
  synchronized Optional<String> resolvedAddress() {
    return Optional.ofNullable(address);
  }

  private boolean required() {
    String value = environment.apply(REQUIRE_VARIABLE);
    if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("false")) {
      return false;
    }
    if (value.trim().equalsIgnoreCase("true")) {
      return true;
    }
    throw new IllegalStateException(
        REQUIRE_VARIABLE
            + " must be true or false, not '"
            + value
            + "': "
            + REQUIRE_VARIABLE
            + "=true makes a missing server fail the tests");
  }

  private void resolve() {
    if (resolved) {
      return;
    }
    resolved = true;
    String value = environment.apply(variable);
    if (value != null && !value.isBlank()) {
      Credentials credentials = Credentials.of(value);
      try {
        address = check.apply(value.trim());
      } catch (IllegalArgumentException e) {
        error =
            variable
                + "="
                + credentials.mask(value)
                + " is malformed: "
                + credentials.mask(String.valueOf(e.getMessage()))
                + ". A good value: "
                + variable
                + "="
                + example;
      } catch (IllegalStateException e) {
        error =
            variable
                + " points at "
                + credentials.mask(value)
                + " but no "
                + name
                + " answers there ("
                + credentials.mask(String.valueOf(e.getMessage()))
                + "): start the server or fix the variable (e.g. "
                + variable
                + "="
                + example
                + ")";
      }
      return;
    }
    try {
      address = container.get().orElse(null);
    } catch (RuntimeException e) {
      error = "Docker is available but Testcontainers could not start " + image + ": " + e;
      errorCause = e;
      return;
    }
    if (address == null) {
      unavailable =
          variable
              + " is not set"
              + (image == null ? "" : " and Docker is not available for Testcontainers");
    }
  }
}
