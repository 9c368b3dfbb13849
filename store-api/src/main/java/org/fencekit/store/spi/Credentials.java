package org.fencekit.store.spi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place for keeping credentials out of messages, for every store and tool: the passwords a
 * store was configured with (a URL's user info password, every password-like parameter, a password
 * given apart), masked wherever they appear, raw or percent-decoded; and, in any text, every URL's
 * user info and every password-like parameter.
 *
 * <p>For a {@code redis://} or {@code rediss://} URL a user info without a colon is the password
 * ({@code redis://secret@host}); for any other URL it is a user name and is not masked on its own.
 */
public final class Credentials {

  /** What a credential is replaced with. */
  public static final String MASK = "***";

  /** No credentials: text is masked by its patterns only. */
  public static final Credentials NONE = new Credentials(List.of());

  private static final Pattern USER_INFO =
      Pattern.compile("(?i)([a-z][a-z0-9+.-]*://)([^/@\\s:]*)(:[^/@\\s]*)?@");
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)([a-z0-9_.-]*(?:password|passwd|pwd)[a-z0-9_.-]*=)[^&;\\s]*");

  private final List<String> secrets;

  private Credentials(List<String> secrets) {
    this.secrets = List.copyOf(secrets);
  }

  /**
   * The credentials of {@code url} and of {@code passwords} given apart.
   *
   * @param url a JDBC or Redis URL, or {@code null}
   * @param passwords passwords given apart; {@code null} and empty ones are skipped
   */
  public static Credentials of(String url, String... passwords) {
    List<String> found = new ArrayList<>();
    for (String password : passwords) {
      add(found, password, false);
    }
    if (url != null) {
      int query = url.indexOf('?');
      Matcher parameter = PASSWORD_PARAMETER.matcher(query < 0 ? "" : url.substring(query + 1));
      while (parameter.find()) {
        add(found, parameter.group().substring(parameter.group(1).length()), true);
      }
      int scheme = url.indexOf("//");
      int at = url.indexOf('@', Math.max(scheme, 0));
      if (scheme >= 0 && at > scheme && (query < 0 || at < query)) {
        String userInfo = url.substring(scheme + 2, at);
        int colon = userInfo.indexOf(':');
        if (colon >= 0) {
          add(found, userInfo.substring(colon + 1), true);
        } else if (url.toLowerCase(Locale.ROOT).startsWith("redis")) {
          add(found, userInfo, true);
        }
      }
    }
    found.sort((a, b) -> b.length() - a.length()); // the longest first: no part of one is left
    return new Credentials(found);
  }

  private static void add(List<String> found, String secret, boolean encoded) {
    if (secret == null || secret.isEmpty()) {
      return;
    }
    found.add(secret);
    if (encoded) {
      try {
        String decoded = URLDecoder.decode(secret, StandardCharsets.UTF_8);
        if (!decoded.isEmpty() && !decoded.equals(secret)) {
          found.add(decoded);
        }
      } catch (IllegalArgumentException e) {
        // not percent-encoded: the raw form is masked
      }
    }
  }

  /**
   * {@code text} with every credential masked, then every URL's user info and every password-like
   * parameter: fit for a message or a log line. {@code null} stays {@code null}.
   */
  public String mask(String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String secret : secrets) {
      out = out.replace(secret, MASK);
    }
    return maskPatterns(out);
  }

  /**
   * {@code text} with every URL's user info password ({@code scheme://user:***@}, and {@code
   * redis://***@} where a Redis user info has no colon) and every password-like parameter ({@code
   * password=}, {@code sslpassword=}, {@code pwd=}, ...) masked; user names are kept.
   */
  public static String maskPatterns(String text) {
    if (text == null) {
      return null;
    }
    Matcher userInfo = USER_INFO.matcher(text);
    StringBuilder out = new StringBuilder();
    while (userInfo.find()) {
      String scheme = userInfo.group(1);
      String shown =
          userInfo.group(3) != null
              ? scheme + userInfo.group(2) + ":" + MASK + "@"
              : scheme.toLowerCase(Locale.ROOT).startsWith("redis")
                  ? scheme + MASK + "@"
                  : userInfo.group();
      userInfo.appendReplacement(out, Matcher.quoteReplacement(shown));
    }
    userInfo.appendTail(out);
    return PASSWORD_PARAMETER.matcher(out).replaceAll("$1" + MASK);
  }

  /**
   * A URL as a message may show it: without user info, its parameters shown as {@code ?...}.
   *
   * @param url a URL
   */
  public static String withoutCredentials(String url) {
    int query = url.indexOf('?');
    String base = query < 0 ? url : url.substring(0, query);
    int scheme = base.indexOf("//");
    int at = base.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      base = base.substring(0, scheme + 2) + base.substring(at + 1);
    }
    return query < 0 ? base : base + "?...";
  }

  /**
   * {@code e} itself when no message in its chain holds a credential, else a copy of the chain
   * (same classes' names, messages masked, same stack traces) that does not.
   */
  public Throwable scrub(Throwable e) {
    boolean leaks = false;
    for (Throwable t = e; t != null && !leaks; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      leaks = !Objects.equals(message, mask(message));
    }
    if (!leaks) {
      return e;
    }
    Throwable cause = e.getCause() == null || e.getCause() == e ? null : scrub(e.getCause());
    RuntimeException copy =
        new RuntimeException(e.getClass().getName() + ": " + mask(e.getMessage()), cause);
    copy.setStackTrace(e.getStackTrace());
    return copy;
  }

  @Override
  public String toString() {
    return "Credentials[" + secrets.size() + " masked]";
  }
}
