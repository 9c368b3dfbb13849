package org.fencekit.store.postgres;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * The one place for the password rules of a JDBC URL: the credentials a store was configured with,
 * so that none of them reaches a message (the password given to the builder, the URL's user info
 * password and every {@code password}-like parameter), and the URL with its {@code password}
 * parameter taken out for the pool, so that the driver's own logging never sees it.
 */
final class Secrets {

  private static final String MASK = "***";

  private final List<String> values;

  private Secrets(List<String> values) {
    this.values = List.copyOf(values);
  }

  /**
   * A JDBC URL with its {@code password} parameter taken out, and that password, decoded.
   *
   * @param url the URL without the parameter
   * @param password the password, or {@code null} if the URL has none
   */
  record Split(String url, String password) {}

  /**
   * Takes the {@code password} parameter out of {@code jdbcUrl}.
   *
   * @throws IllegalArgumentException naming jdbcUrl if the password is not properly URL-encoded
   */
  static Split split(String jdbcUrl) {
    int query = jdbcUrl.indexOf('?');
    if (query < 0) {
      return new Split(jdbcUrl, null);
    }
    StringJoiner kept = new StringJoiner("&");
    String password = null;
    for (String parameter : jdbcUrl.substring(query + 1).split("&")) {
      if (parameter.startsWith("password=")) {
        try {
          password =
              URLDecoder.decode(parameter.substring("password=".length()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "jdbcUrl has a password parameter that is not properly URL-encoded (a '%' must"
                  + " start %XX): encode it, or give it by password()");
        }
      } else if (!parameter.isEmpty()) {
        kept.add(parameter);
      }
    }
    String base = jdbcUrl.substring(0, query);
    return new Split(kept.length() == 0 ? base : base + "?" + kept, password);
  }

  /** No secrets: a user's DataSource keeps its own. */
  static Secrets none() {
    return new Secrets(List.of());
  }

  /**
   * The secrets of a JDBC URL and a separately given password.
   *
   * @param jdbcUrl the URL, or {@code null}
   * @param password the password, or {@code null}
   */
  static Secrets of(String jdbcUrl, String password) {
    List<String> values = new ArrayList<>();
    if (password != null && !password.isEmpty()) {
      values.add(password);
    }
    if (jdbcUrl != null) {
      int query = jdbcUrl.indexOf('?');
      if (query >= 0) {
        for (String parameter : jdbcUrl.substring(query + 1).split("&")) {
          int equals = parameter.indexOf('=');
          if (equals > 0
              && parameter.substring(0, equals).toLowerCase(Locale.ROOT).contains("password")) {
            String raw = parameter.substring(equals + 1);
            if (!raw.isEmpty()) {
              values.add(raw);
              values.add(decode(raw));
            }
          }
        }
      }
      int at = jdbcUrl.indexOf('@');
      int scheme = jdbcUrl.indexOf("//");
      if (scheme >= 0 && at > scheme && (query < 0 || at < query)) {
        String userInfo = jdbcUrl.substring(scheme + 2, at);
        int colon = userInfo.indexOf(':');
        if (colon >= 0 && colon + 1 < userInfo.length()) {
          values.add(userInfo.substring(colon + 1));
        }
      }
    }
    values.sort((a, b) -> b.length() - a.length()); // mask the longest first
    return new Secrets(values);
  }

  /** A JDBC URL fit for a message: host, port and database, without user info or parameters. */
  static String redactUrl(String jdbcUrl) {
    int query = jdbcUrl.indexOf('?');
    String base = query < 0 ? jdbcUrl : jdbcUrl.substring(0, query);
    int scheme = base.indexOf("//");
    int at = base.indexOf('@');
    if (scheme >= 0 && at > scheme) {
      base = base.substring(0, scheme + 2) + base.substring(at + 1);
    }
    return query < 0 ? base : base + "?...";
  }

  /** {@code text} with every secret masked. */
  String clean(String text) {
    String cleaned = text;
    for (String value : values) {
      cleaned = cleaned.replace(value, MASK);
    }
    return cleaned;
  }

  private static String decode(String raw) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return raw;
    }
  }
}
