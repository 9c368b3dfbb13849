package org.fencekit.store.redis;

import java.util.List;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * Whether a Jedis failure proves that the command never ran, so a write can say "nothing was
 * written" instead of "outcome unknown": it was never sent (no connection could be made, the pool
 * had none to lend), or the server refused it before running anything ({@code TRYAGAIN} while a
 * slot migrates, {@code CLUSTERDOWN}, {@code MOVED} or {@code ASK} left after the client's
 * redirects, {@code LOADING}, {@code BUSY}, {@code MASTERDOWN}, {@code READONLY}, {@code OOM}, an
 * ACL refusal). Anything else, a read timeout or a connection lost after sending above all, may
 * have run.
 *
 * <p>This looks at the last failure only; a Cluster client that re-sent the command after a lost
 * connection is reported by {@link SendTracker}, and then nothing here is trusted.
 */
final class Refusal {

  /** Error replies the server gives before running a command or script at all. */
  private static final List<String> REFUSED =
      List.of(
          "TRYAGAIN",
          "CLUSTERDOWN",
          "MOVED",
          "ASK",
          "LOADING",
          "BUSY",
          "MASTERDOWN",
          "READONLY",
          "OOM",
          "NOAUTH",
          "NOPERM",
          "WRONGPASS");

  private Refusal() {}

  /** Whether {@code e} proves the command never ran. */
  static boolean nothingRan(JedisException e) {
    if (e instanceof JedisClusterOperationException) {
      // every attempt was redirected (a connection failure would be the one kept), or none began
      Throwable[] suppressed = e.getSuppressed();
      Throwable last =
          e.getCause() != null ? e.getCause() : suppressed.length == 0 ? null : suppressed[0];
      return last instanceof JedisRedirectionException
          || (last instanceof JedisException inner
              && !(last instanceof JedisClusterOperationException)
              && nothingRan(inner));
    }
    if (e instanceof JedisConnectionException) {
      String message = String.valueOf(e.getMessage());
      return message.startsWith("Failed to connect to")
          || message.startsWith("Failed to create socket");
    }
    if (e instanceof JedisDataException) {
      // an error reply's first word is its code
      return REFUSED.contains(String.valueOf(e.getMessage()).split(" ", 2)[0]);
    }
    // the pool had no connection to lend within its wait, or could not make one
    return String.valueOf(e.getMessage()).startsWith("Could not get a resource from the pool");
  }

  /** Whether {@code e} is a TRYAGAIN (a slot migrating, this script's keys split): run it again. */
  static boolean tryAgain(JedisException e) {
    return e instanceof JedisDataException && String.valueOf(e.getMessage()).startsWith("TRYAGAIN");
  }
}
