package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the test messages show of a URL with a password. */
class RedactionTest {

  @Test
  @DisplayName("user info and password parameters are masked, the rest of the URL kept")
  void masksPasswords() {
    assertEquals(
        "jdbc:postgresql://db:5432/shop?user=a&password=***",
        Redaction.url("jdbc:postgresql://db:5432/shop?user=a&password=s3cret"));
    assertEquals(
        "jdbc:postgresql://a:***@db/shop?sslpassword=***",
        Redaction.url("jdbc:postgresql://a:pw1@db/shop?sslpassword=k3y"));
    assertEquals("redis://:***@127.0.0.1:6379/0", Redaction.url("redis://:pw@127.0.0.1:6379/0"));
    assertEquals("redis://127.0.0.1:6379", Redaction.url("redis://127.0.0.1:6379"));
  }

  @Test
  @DisplayName("a driver's message loses the URL's password, raw or percent-decoded")
  void cleansText() {
    String url = "jdbc:postgresql://db/shop?password=s%40cret";
    assertEquals(
        "auth failed for *** (*** given)",
        Redaction.clean("auth failed for s@cret (s%40cret given)", url));
  }
}
