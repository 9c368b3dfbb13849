package org.fencekit.store.redis;

import java.net.URI;
import java.util.regex.Pattern;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one place for a Redis URL's password rules: it keeps the password of {@code
 * redis://user:password@host} out of every message and every exception the store throws, raw or
 * percent-decoded, and any user info out of a text that is not a URI at all.
 */
final class Redaction {

  /** For a client without a password in a URL. */
  static final Redaction NONE = new Redaction(null, null);

  private static final Pattern USER_INFO = Pattern.compile("(?i)(rediss?://)[^@/\\s]*@");

  private final String rawPassword;
  private final String password;

  private Redaction(String rawPassword, String password) {
    this.rawPassword = rawPassword;
    this.password = password;
  }

  /** The password of {@code uri}, if it has user info. */
  static Redaction of(URI uri) {
    String raw = uri.getRawUserInfo();
    String decoded = uri.getUserInfo();
    if (raw == null) {
      return NONE;
    }
    int r = raw.indexOf(':');
    int d = decoded.indexOf(':');
    return new Redaction(
        r < 0 ? raw : raw.substring(r + 1), d < 0 ? decoded : decoded.substring(d + 1));
  }

  /** {@code text} with the user info of every redis:// or rediss:// URL in it masked. */
  static String redactUserInfo(String text) {
    return USER_INFO.matcher(text).replaceAll("$1***@");
  }

  /** {@code text} with the password masked. */
  String redact(String text) {
    if (text == null) {
      return null;
    }
    String out = redactUserInfo(text);
    if (rawPassword != null && !rawPassword.isEmpty()) {
      out = out.replace(rawPassword, "***");
    }
    if (password != null && !password.isEmpty()) {
      out = out.replace(password, "***");
    }
    return out;
  }

  /**
   * The cause to attach: the client's exception itself when no message in its chain holds the
   * password, else a copy of the chain with the password cut out.
   */
  Throwable scrub(Throwable e) {
    boolean leaks = false;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      if (message != null && !message.equals(redact(message))) {
        leaks = true;
      }
    }
    if (!leaks) {
      return e;
    }
    Throwable cause = e.getCause() == null || e.getCause() == e ? null : scrub(e.getCause());
    JedisException copy =
        new JedisException(e.getClass().getName() + ": " + redact(e.getMessage()), cause);
    copy.setStackTrace(e.getStackTrace());
    return copy;
  }
}
