package org.fencekit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One of the store's Lua scripts: its source, read once from this package's resources with the
 * shared helpers, and the SHA-1 Redis knows it by.
 *
 * <p>{@link #run} sends EVALSHA. A node whose script cache was emptied (a restart, a failover to a
 * replica that never saw the script, SCRIPT FLUSH) answers NOSCRIPT without running anything, so
 * the script is then sent once more in full with EVAL, which also caches it on that node again.
 * Keys travel as KEYS and every value as ARGV; nothing is ever spliced into the source.
 *
 * @param name the script's name, for messages
 * @param source its source, helpers included
 * @param sha1 the SHA-1 of the source, as EVALSHA takes it
 */
record LuaScript(String name, String source, String sha1) {

  /** The line where a script has {@code helpers.lua} put: after its hot path, or at its top. */
  static final String HELPERS = "-- helpers.lua\n";

  /**
   * Reads {@code <name>.lua} from this package's resources, with {@code prelude.lua} (the helpers
   * every writing script's hot path uses) put after its first line, the {@code #!lua} line that
   * must stay first, and {@code helpers.lua} (the others) put at its line {@link #HELPERS}, if it
   * has one: a hot path that returns before that line does not create their closures.
   */
  static LuaScript load(String name) {
    String script = resource(name + ".lua");
    int firstLine = script.indexOf('\n') + 1;
    String source =
        script.substring(0, firstLine)
            + resource("prelude.lua")
            + script.substring(firstLine).replace(HELPERS, resource("helpers.lua"));
    return new LuaScript(name, source, sha1(source));
  }

  private static String resource(String resource) {
    try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource " + resource + " is missing from the store-redis jar; rebuild store-redis");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + resource + " of store-redis", e);
    }
  }

  /** Runs the script on the node that holds {@code keys}, loading it there if it is not cached. */
  Object run(UnifiedJedis client, List<String> keys, List<String> args) {
    try {
      return client.evalsha(sha1, keys, args);
    } catch (JedisNoScriptException e) {
      return client.eval(source, keys, args);
    }
  }

  private static String sha1(String source) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(
          "this JVM has no SHA-1, which every Java platform must provide", e);
    }
  }
}
