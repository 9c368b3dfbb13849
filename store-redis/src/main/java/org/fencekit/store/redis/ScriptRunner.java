package org.fencekit.store.redis;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.Validate;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Runs the store's scripts and commands on its client: a script by EVALSHA ({@link LuaScript}), its
 * reply checked for the shape every script answers in; a client failure as {@link
 * StoreUnavailableException} naming the operation and the order, without the URL's password.
 */
final class ScriptRunner {

  /** The backend's name in the store's exceptions. */
  static final String BACKEND = "redis";

  /** Runs of a command the server answered TRYAGAIN (a slot migrating, nothing ran) in all. */
  static final int TRYAGAIN_ATTEMPTS = 8;

  private final UnifiedJedis client;
  private final boolean ownsClient;
  private final boolean exactRefusals;
  private final boolean tracked;
  private final Credentials credentials;
  private final String target;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param client the client every call goes through
   * @param ownsClient whether {@link #close()} closes it (the store built it)
   * @param exactRefusals whether a failure that proves nothing ran may say so: a node client that
   *     never re-sends, or a Cluster client with a {@link SendTracker}; not a user's client, whose
   *     retries are unknown
   * @param tracked whether the client runs commands through a {@link SendTracker} (a Cluster client
   *     the store built), whose note is then reset before each call and read after a failure; no
   *     other client ever re-sends on its own, or its failures are never exact
   * @param credentials the credentials of the URL the client was built from
   * @param target where the data lives, for messages, without the password
   */
  ScriptRunner(
      UnifiedJedis client,
      boolean ownsClient,
      boolean exactRefusals,
      boolean tracked,
      Credentials credentials,
      String target) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.exactRefusals = exactRefusals;
    this.tracked = tracked;
    this.credentials = credentials;
    this.target = target;
  }

  /** Where the data lives, without the password. */
  String target() {
    return target;
  }

  /**
   * Runs {@code script} and returns its reply: the outcome, then (but for "unknown") the order;
   * bulk strings as Redis sent them ({@code byte[]}, read with {@link HashCodec#text}).
   *
   * @param cluster whether the client is a Redis Cluster client
   * @throws StoreUnavailableException if Redis fails; the outcome is then unknown unless the
   *     failure proves the script never ran ({@link Refusal})
   * @throws IllegalStateException if the reply has another shape, or the runner is closed
   */
  List<?> script(
      LuaScript script,
      String operation,
      String sessionId,
      boolean cluster,
      LuaScript.Arg[] keys,
      LuaScript.Arg[] args) {
    // A user's client runs Jedis's own evalsha, which applies whatever it is configured with (a
    // key preprocessor); the lean command is only for a client the store built.
    Object reply =
        call(
            operation,
            sessionId,
            true,
            c ->
                ownsClient
                    ? script.run(c, cluster, keys, args)
                    : script.run(c, LuaScript.texts(keys), LuaScript.texts(args)));
    if (!(reply instanceof List<?> list)
        || list.isEmpty()
        || (list.size() < 2 && !"unknown".equals(HashCodec.text(list.get(0))))) {
      throw unexpected(script, HashCodec.show(reply));
    }
    return list;
  }

  /**
   * Runs one Redis command, turning the client's failures into {@link StoreUnavailableException}. A
   * command the server answered TRYAGAIN (nothing ran) is run again, at most {@value
   * #TRYAGAIN_ATTEMPTS} times in all, with a short growing pause, so a live slot migration costs
   * latency rather than errors.
   *
   * @param writes whether the command may write, so that a failure leaves its outcome unknown
   *     unless it proves the command never ran
   * @throws IllegalStateException if the runner is closed
   */
  <T> T call(
      String operation, String sessionId, boolean writes, Function<UnifiedJedis, T> command) {
    if (closed.get()) {
      throw Validate.storeClosed("redis store", operation, sessionId);
    }
    for (int attempt = 1; ; attempt++) {
      if (tracked) {
        SendTracker.reset();
      }
      try {
        return command.apply(client);
      } catch (JedisException e) {
        boolean nothingRan = !(tracked && SendTracker.mayHaveRun()) && Refusal.nothingRan(e);
        if (nothingRan && Refusal.tryAgain(e) && attempt < TRYAGAIN_ATTEMPTS) {
          pause(operation, sessionId, attempt, e);
          continue;
        }
        throw unavailable(
            operation, sessionId, writes && !(exactRefusals && nothingRan), e, attempt);
      }
    }
  }

  private void pause(String operation, String sessionId, int attempt, JedisException cause) {
    try {
      Thread.sleep(Math.min(100, 5L << (attempt - 1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      StoreUnavailableException failure = unavailable(operation, sessionId, false, cause, attempt);
      failure.addSuppressed(e);
      throw failure;
    }
  }

  /** Closes the client if the store built it. Idempotent. */
  void close() {
    if (closed.compareAndSet(false, true) && ownsClient) {
      client.close();
    }
  }

  /** A script's answer that none of its branches gives. */
  static IllegalStateException unexpected(LuaScript script, String reply) {
    return new IllegalStateException(
        String.format(
            "redis store: script %s (sha1 %s) answered '%s', which is none of the outcomes it can"
                + " give; check that the server is Redis 7 or later and not a proxy that rewrites"
                + " replies",
            script.name(), script.sha1(), reply));
  }

  /** An exception and its causes, as one line. */
  static String describe(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null && out.length() < 1000; t = t.getCause()) {
      if (out.length() > 0) {
        out.append(", caused by ");
      }
      out.append(t.getClass().getSimpleName());
      String message = t.getMessage();
      if (message != null) {
        out.append(": ")
            .append(message.endsWith(".") ? message.substring(0, message.length() - 1) : message);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return out.toString();
  }

  private StoreUnavailableException unavailable(
      String operation, String sessionId, boolean writes, Throwable e, int attempts) {
    String detail =
        String.format(
            "%s%s (Redis at %s); check that Redis 7 or later is up, reachable from here, and"
                + " answers within the client's timeout",
            credentials.mask(describe(e)),
            attempts > 1 ? " (after " + attempts + " runs answered TRYAGAIN)" : "",
            target);
    return new StoreUnavailableException(
        BACKEND, operation, sessionId, writes, detail, credentials.scrub(e));
  }
}
