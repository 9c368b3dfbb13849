package org.fencekit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.ClusterCommandArguments;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.commands.ProtocolCommand;
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
 * <p>The writing scripts' hot path on a client the store built ({@link #run(UnifiedJedis, boolean,
 * Arg[], Arg[])}; a user's client goes through Jedis's {@code evalsha}, which applies its own
 * settings such as a key preprocessor) sends keys and values encoded once ({@link Arg}), the SHA-1
 * and the key count encoded when the script is loaded, and leaves the reply as Redis sent it (bulk
 * strings as {@code byte[]}): Jedis's own {@code evalsha} encodes each String argument, copies the
 * bytes again and decodes the reply through streams, about half of what a claim + complete
 * allocated on the client.
 *
 * @param name the script's name, for messages
 * @param source its source, helpers included
 * @param sha1 the SHA-1 of the source, as EVALSHA takes it
 */
record LuaScript(String name, String source, String sha1, Arg sha1Arg, Arg sourceArg) {

  /** The key counts of the writing scripts, encoded once. */
  private static final Arg[] KEY_COUNTS = {
    Arg.of("0"), Arg.of("1"), Arg.of("2"), Arg.of("3"), Arg.of("4"), Arg.of("5"), Arg.of("6")
  };

  /**
   * A key or value of a script, UTF-8 encoded once: Jedis sends a {@link Rawable} as it is, where
   * it would encode a String and copy a {@code byte[]}. The bytes are never changed after.
   */
  record Arg(byte[] raw) implements Rawable {

    /** {@code text}'s UTF-8 bytes. */
    static Arg of(String text) {
      return new Arg(text.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code value}'s decimal text, written as bytes (no String between). */
    static Arg of(long value) {
      if (value < 0) {
        return new Arg(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
      }
      byte[] raw = new byte[digits(value)];
      put(raw, 0, value);
      return new Arg(raw);
    }

    /** How many decimal digits {@code value}, at least 0, has. */
    static int digits(long value) {
      int digits = 1;
      for (long rest = value / 10; rest > 0; rest /= 10) {
        digits++;
      }
      return digits;
    }

    /**
     * Writes {@code value}, at least 0, in decimal into {@code out} from {@code at}; returns the
     * index after it.
     */
    static int put(byte[] out, int at, long value) {
      int end = at + digits(value);
      long rest = value;
      for (int i = end - 1; i >= at; i--) {
        out[i] = (byte) ('0' + rest % 10);
        rest /= 10;
      }
      return end;
    }

    @Override
    public byte[] getRaw() {
      return raw;
    }

    @Override
    public String toString() {
      return new String(raw, StandardCharsets.UTF_8);
    }
  }

  LuaScript(String name, String source, String sha1) {
    this(name, source, sha1, Arg.of(sha1), Arg.of(source));
  }

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

  /**
   * Runs the script as {@link #run(UnifiedJedis, List, List)} does, with keys and values encoded
   * once and the reply left undecoded (bulk strings as {@code byte[]}, arrays as lists).
   *
   * @param cluster whether {@code client} is a Redis Cluster client, which routes by the keys' slot
   */
  Object run(UnifiedJedis client, boolean cluster, Arg[] keys, Arg[] args) {
    try {
      return client.executeCommand(command(Protocol.Command.EVALSHA, sha1Arg, cluster, keys, args));
    } catch (JedisNoScriptException e) {
      return client.executeCommand(command(Protocol.Command.EVAL, sourceArg, cluster, keys, args));
    }
  }

  /** The arguments as text, for Jedis's own {@code evalsha}. */
  static List<String> texts(Arg[] args) {
    List<String> texts = new ArrayList<>(args.length);
    for (Arg arg : args) {
      texts.add(arg.toString());
    }
    return texts;
  }

  private static CommandObject<Object> command(
      ProtocolCommand command, Arg script, boolean cluster, Arg[] keys, Arg[] args) {
    CommandArguments arguments =
        cluster ? new ClusterCommandArguments(command) : new CommandArguments(command);
    arguments.add(script).add(KEY_COUNTS[keys.length]);
    // A Cluster client routes by the slot of the keys it is given: the order's first key names the
    // slot all of them share (OrderKeys), so only it is hashed; a node client needs none of them
    // as keys (Jedis reads a command's keys only to route it, or for a client-side cache, which
    // scripts never use), so they go as plain arguments, without the list that would hold them.
    for (int i = 0; i < keys.length; i++) {
      if (cluster && i == 0) {
        arguments.key(keys[i]);
      } else {
        arguments.add(keys[i]);
      }
    }
    for (Arg arg : args) {
      arguments.add(arg);
    }
    return new CommandObject<>(arguments, BuilderFactory.RAW_OBJECT);
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
