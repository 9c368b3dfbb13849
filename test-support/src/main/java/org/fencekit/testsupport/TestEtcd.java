package org.fencekit.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The etcd cluster of fencekit's tests, found once per JVM from {@value #VARIABLE} (there is no
 * container fallback: {@code bash .ci/etcd-cluster.sh start} starts three members on loopback and
 * prints the value), else every test that asks is skipped saying how to enable it (or fails with
 * {@code FENCEKIT_REQUIRE_BACKENDS=true}). A malformed value, or one where no member answers, fails
 * the tests naming the variable and showing a good value.
 *
 * <p>It talks to etcd through its JSON gateway ({@code /v3/...}, {@code /health}), so this module
 * needs no etcd client. Every key a test class writes starts with a prefix of its own, deleted
 * after the class:
 *
 * <pre>{@code
 * @RegisterExtension static final TestEtcd.ClassKeys etcd = TestEtcd.cluster("tck");
 * ... EtcdOrderStore.builder().endpoints(etcd.endpoints()).keyPrefix(etcd.prefix()).build();
 * }</pre>
 */
public final class TestEtcd {

  /** The environment variable naming the members, {@code http://host:port,...}. */
  public static final String VARIABLE = "FENCEKIT_ETCD_ENDPOINTS";

  /** A good value of {@value #VARIABLE}: what {@code .ci/etcd-cluster.sh start} prints. */
  public static final String EXAMPLE =
      "http://127.0.0.1:2379,http://127.0.0.1:2381,http://127.0.0.1:2383";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** The cluster of this JVM; {@code CLUSTER.in(...)} is another, for tests. */
  static final Backend CLUSTER =
      new Backend(
          "etcd",
          VARIABLE,
          EXAMPLE,
          "`bash .ci/etcd-cluster.sh start` starts three members on loopback and prints them;"
              + " Debian: apt-get install -y etcd-server etcd-client",
          null,
          System::getenv,
          TestEtcd::check,
          Optional::empty);

  private TestEtcd() {}

  /**
   * Whether there is a cluster; never skips.
   *
   * @throws IllegalStateException if {@value #VARIABLE} is malformed or no member answers there, or
   *     if there is none and {@code FENCEKIT_REQUIRE_BACKENDS=true}
   */
  public static boolean available() {
    return CLUSTER.available();
  }

  /**
   * The members, {@code http://host:port,...}; skips the calling test if there is none.
   *
   * @throws IllegalStateException as {@link #available()}
   */
  public static String endpoints() {
    return CLUSTER.address();
  }

  /**
   * An extension (register it with {@code @RegisterExtension} on a static field) giving a test
   * class the members and a fresh key prefix; each test is skipped (or fails) as {@link
   * #endpoints()} says when there is no cluster, and the prefix's keys are deleted after the class.
   *
   * @param label what the keys are for: 1 to 40 of {@code a-z}, {@code 0-9} and {@code -}
   */
  public static ClassKeys cluster(String label) {
    return new ClassKeys(TestRedis.newPrefix(label));
  }

  /** The members and key prefix of {@link #cluster}. */
  public static final class ClassKeys extends PerClass {

    private final String prefix;

    private ClassKeys(String prefix) {
      super(CLUSTER);
      this.prefix = prefix;
    }

    /** The members, {@code http://host:port,...}; skips the test if there is none. */
    public String endpoints() {
      return server.address();
    }

    /** The prefix every key of this test class starts with. */
    public String prefix() {
      return prefix;
    }

    @Override
    boolean setUp() {
      return true;
    }

    @Override
    void cleanUp() {
      deleteKeys(server.address(), prefix);
    }
  }

  /**
   * Deletes every key starting with {@code prefix} (one DeleteRange through the first member that
   * answers).
   */
  public static void deleteKeys(String endpoints, String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new IllegalArgumentException("prefix must not be empty: that would delete every key");
    }
    byte[] start = prefix.getBytes(StandardCharsets.UTF_8);
    byte[] end = start.clone();
    end[end.length - 1]++;
    String body = "{\"key\":\"%s\",\"range_end\":\"%s\"}".formatted(base64(start), base64(end));
    RuntimeException failure = null;
    for (String member : members(endpoints)) {
      try {
        post(member, "/v3/kv/deleterange", body);
        return;
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    throw failure;
  }

  /** The members of {@code endpoints}, {@code http://host:port} each. */
  static List<String> members(String endpoints) {
    List<String> members = new ArrayList<>();
    for (String part : endpoints.split(",", -1)) {
      String member = part.trim();
      URI uri = URI.create(member);
      if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1) {
        throw new IllegalArgumentException(
            "'" + member + "' is not http://host:port; the members are separated by commas");
      }
      members.add("http://" + uri.getHost() + ":" + uri.getPort());
    }
    return members;
  }

  /** POSTs JSON to a member's gateway and returns the answer's body; fails on a status not 200. */
  static String post(String member, String path, String json) {
    return send(
        HttpRequest.newBuilder(URI.create(member + path))
            .timeout(Duration.ofSeconds(5))
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  /** GETs a member's path ({@code /health}) and returns the answer's body. */
  static String get(String member, String path) {
    return send(
        HttpRequest.newBuilder(URI.create(member + path)).timeout(Duration.ofSeconds(5)).build());
  }

  private static String send(HttpRequest request) {
    try {
      HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() != 200) {
        throw new IllegalStateException(
            request.uri() + " answered " + answer.statusCode() + ": " + answer.body());
      }
      return answer.body();
    } catch (IOException e) {
      throw new IllegalStateException(request.uri() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** A value of {@value #VARIABLE} whose members answer, one of them with a healthy cluster. */
  private static String check(String endpoints) {
    String failure = null;
    for (String member : members(endpoints)) {
      try {
        String health = get(member, "/health");
        if (health.replace(" ", "").contains("\"health\":\"true\"")) {
          return String.join(",", members(endpoints));
        }
        failure = member + " answers " + health.trim();
      } catch (RuntimeException e) {
        failure = e.getMessage();
      }
    }
    throw new IllegalStateException(failure);
  }
}
