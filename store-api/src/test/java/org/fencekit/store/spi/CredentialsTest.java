package org.fencekit.store.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CredentialsTest {

  @Test
  void masksEveryPasswordOfAJdbcUrlRawAndDecodedAndOnesGivenApart() {
    Credentials credentials =
        Credentials.of("jdbc:postgresql://db/shop?password=s%40cret&sslpassword=k3y", "given");
    assertEquals("*** *** *** ***", credentials.mask("s%40cret s@cret k3y given"));
  }

  @Test
  void masksTheUserInfoPasswordButNotAJdbcUserName() {
    Credentials credentials = Credentials.of("jdbc:postgresql://shop:pw1@db/shop?user=shop");
    assertEquals("user shop refused: ***", credentials.mask("user shop refused: pw1"));
    assertEquals(
        "user postgres", Credentials.of("jdbc:postgresql://postgres@db/x").mask("user postgres"));
  }

  @Test
  void aRedisUserInfoWithoutAColonIsThePassword() {
    assertEquals(
        "auth *** failed", Credentials.of("redis://s3cret@h:6379").mask("auth s3cret failed"));
    assertEquals("auth *** failed", Credentials.of("rediss://u:p%40ss@h").mask("auth p@ss failed"));
  }

  @Test
  void masksUrlsAndPasswordParametersInAnyText() {
    assertEquals(
        "at redis://:***@127.0.0.1:6379/0 and jdbc:postgresql://db/shop?password=***&user=u",
        Credentials.maskPatterns(
            "at redis://:pw@127.0.0.1:6379/0 and jdbc:postgresql://db/shop?password=x&user=u"));
    assertEquals("pwd=*** PASSWD=***;", Credentials.maskPatterns("pwd=a PASSWD=b;"));
    assertEquals("redis://127.0.0.1:6379", Credentials.maskPatterns("redis://127.0.0.1:6379"));
    assertEquals(
        "redis://***@h and rediss://u:***@h",
        Credentials.maskPatterns("redis://pw@h and rediss://u:p@h"));
    assertEquals(
        "jdbc:postgresql://a:***@db/shop?sslpassword=***",
        Credentials.maskPatterns("jdbc:postgresql://a:pw1@db/shop?sslpassword=k3y"));
    assertEquals(
        "jdbc:postgresql://shop@db/x", Credentials.maskPatterns("jdbc:postgresql://shop@db/x"));
    assertNull(Credentials.NONE.mask(null));
  }

  @Test
  void aUrlForMessagesHasNoUserInfoNorParameters() {
    assertEquals(
        "jdbc:postgresql://db:5432/shop?...",
        Credentials.withoutCredentials("jdbc:postgresql://a:b@db:5432/shop?user=a&password=x"));
    assertEquals("redis://h:6379", Credentials.withoutCredentials("redis://h:6379"));
    assertEquals(
        "jdbc:postgresql://db/shop",
        Credentials.withoutCredentials("jdbc:postgresql://a:s3@db/shop"));
  }

  @Test
  void scrubsOnlyAChainThatLeaks() {
    Credentials credentials = Credentials.of("redis://:hunter2@h");
    IllegalStateException clean = new IllegalStateException("timed out");
    assertSame(clean, credentials.scrub(clean));
    Throwable copy =
        credentials.scrub(new IllegalStateException("wrap", new RuntimeException("bad hunter2")));
    assertTrue(copy.getCause().getMessage().contains("***"), copy.getCause().getMessage());
    assertFalse(copy.getCause().getMessage().contains("hunter2"));
  }
}
