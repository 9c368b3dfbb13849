package org.fencekit.store.jdbc;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

/**
 * A JDBC URL's {@code password} parameter, taken out for the pool so that the driver's own logging
 * never sees it. Masking credentials in messages is {@link org.fencekit.store.spi.Credentials}'s.
 */
public final class PasswordParameter {

  private PasswordParameter() {}

  /**
   * A JDBC URL with its {@code password} parameter taken out, and that password, decoded.
   *
   * @param url the URL without the parameter
   * @param password the password, or {@code null} if the URL has none
   */
  public record Split(String url, String password) {}

  /**
   * Takes the {@code password} parameter out of {@code jdbcUrl}.
   *
   * @throws IllegalArgumentException naming jdbcUrl if the password is not properly URL-encoded
   */
  public static Split split(String jdbcUrl) {
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
}
