package org.fencekit.store.redis;

import java.time.Duration;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.StaticCommandFlagsRegistry;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.executors.ClusterCommandExecutor;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * The Cluster client's command executor, noting per thread whether an attempt lost its connection
 * after the command may have been sent. Jedis re-sends a command after such a loss on its own, so a
 * call that then ends in a refusal ({@code TRYAGAIN}, say) may still have run once: {@link
 * ScriptRunner} says "outcome unknown" for it, never "nothing written".
 */
final class SendTracker extends ClusterCommandExecutor {

  /** Per thread, one flag: a holder set in place, which is cheaper than a ThreadLocal's set. */
  private static final ThreadLocal<boolean[]> MAY_HAVE_RUN =
      ThreadLocal.withInitial(() -> new boolean[1]);

  SendTracker(ClusterConnectionProvider provider, int maxAttempts, Duration maxTotalRetries) {
    super(provider, maxAttempts, maxTotalRetries, StaticCommandFlagsRegistry.registry());
  }

  /** Forgets what the previous call on this thread did. */
  static void reset() {
    MAY_HAVE_RUN.get()[0] = false;
  }

  /** Whether an attempt of the current call on this thread lost its connection mid-command. */
  static boolean mayHaveRun() {
    return MAY_HAVE_RUN.get()[0];
  }

  @Override
  protected <T> T execute(Connection connection, CommandObject<T> commandObject) {
    try {
      return super.execute(connection, commandObject);
    } catch (JedisConnectionException e) {
      MAY_HAVE_RUN.get()[0] = true;
      throw e;
    }
  }
}
