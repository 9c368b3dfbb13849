package org.fencekit.testsupport;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Keeps the password of a server URL out of test messages: the user info's password ({@code
 * scheme://user:password@host}) and every {@code password}-like query parameter.
 */
final class Redaction {

  private static final String MASK = "***";

  private Redaction() {}

  /** {@code url} with its passwords masked. */
  static String url(String url) {
    return clean(url, url);
  }

  /** {@code text} with every password of {@code url} masked, longest first. */
  static String clean(String text, String url) {
    if (text == null) {
      return "null";
    }
    String cleaned = text;
    for (String secret : secrets(url)) {
      cleaned = cleaned.replace(secret, MASK);
    }
    return cleaned;
  }

  private static List<String> secrets(String url) {
    List<String> secrets = new ArrayList<>();
    int query = url.indexOf('?');
    if (query >= 0) {
      for (String parameter : url.substring(query + 1).split("&")) {
        int equals = parameter.indexOf('=');
        if (equals > 0
            && parameter.substring(0, equals).toLowerCase(Locale.ROOT).contains("password")
            && equals + 1 < parameter.length()) {
          String raw = parameter.substring(equals + 1);
          secrets.add(raw);
          secrets.add(decode(raw));
        }
      }
    }
    int scheme = url.indexOf("//");
    int at = url.indexOf('@', Math.max(scheme, 0));
    if (scheme >= 0 && at > scheme && (query < 0 || at < query)) {
      String userInfo = url.substring(scheme + 2, at);
      int colon = userInfo.indexOf(':');
      if (colon >= 0 && colon + 1 < userInfo.length()) {
        secrets.add(userInfo.substring(colon + 1));
        secrets.add(decode(userInfo.substring(colon + 1)));
      }
    }
    secrets.removeIf(String::isEmpty);
    secrets.sort((a, b) -> b.length() - a.length());
    return secrets;
  }

  private static String decode(String raw) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return raw;
    }
  }
}
