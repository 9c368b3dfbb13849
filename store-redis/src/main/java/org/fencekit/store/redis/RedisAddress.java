package org.fencekit.store.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.Validate;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisURIHelper;

/** Where a store's Redis is, as the builder takes it: a node's URL or a cluster's nodes, parsed. */
final class RedisAddress {

  private RedisAddress() {}

  /**
   * A single node's URL, checked: {@code redis://} or {@code rediss://}, a host, and an empty path
   * or a database number.
   *
   * @throws IllegalArgumentException naming {@code url}, without its password
   */
  static URI parseUrl(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // URISyntaxException's message repeats the input, password included: not passed on.
      throw new IllegalArgumentException(
          String.format(
              "url must look like redis://[user:password@]host[:port][/db], got %s, which is not a"
                  + " URI (%s)",
              Credentials.maskPatterns(url), e.getReason()));
    }
    String shown = Credentials.of(url).mask(url);
    if (!JedisURIHelper.isRedisScheme(uri) && !JedisURIHelper.isRedisSSLScheme(uri)) {
      throw new IllegalArgumentException("url must start with redis:// or rediss://, got " + shown);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          "url must name a host, as in redis://127.0.0.1:6379, got " + shown);
    }
    String path = uri.getPath();
    if (path != null && !path.isEmpty() && !path.equals("/") && !path.matches("/[0-9]{1,5}")) {
      throw new IllegalArgumentException(
          "url's path must be empty or a database number such as /0, got " + shown);
    }
    return uri;
  }

  /**
   * A cluster's nodes given as {@code host:port,host:port} ({@code [ipv6]:port} too).
   *
   * @throws IllegalArgumentException or {@link NullPointerException} naming {@code clusterNodes}
   */
  static Set<HostAndPort> parseNodes(String text) {
    Validate.notNull("clusterNodes", text);
    Set<HostAndPort> nodes = new LinkedHashSet<>();
    for (String part : text.split(",", -1)) {
      String node = part.trim();
      int colon = node.lastIndexOf(':');
      if (node.isEmpty() || colon < 1) {
        throw new IllegalArgumentException(
            "clusterNodes must look like host:port,host:port, got '" + text + "'");
      }
      int port;
      try {
        port = Integer.parseInt(node.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "clusterNodes has a port that is not a number in '" + node + "' of '" + text + "'");
      }
      String host = node.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      nodes.add(new HostAndPort(host, port));
    }
    return checkNodes(nodes);
  }

  /**
   * A cluster's nodes, checked: at least one, each with a host and a port from 1 to 65535.
   *
   * @throws IllegalArgumentException or {@link NullPointerException} naming {@code clusterNodes}
   */
  static Set<HostAndPort> checkNodes(Collection<HostAndPort> nodes) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("clusterNodes must name at least one node, got none");
    }
    for (HostAndPort node : nodes) {
      Validate.notNull("clusterNodes element", node);
      if (node.getHost() == null
          || node.getHost().isBlank()
          || node.getPort() < 1
          || node.getPort() > 65535) {
        throw new IllegalArgumentException(
            "clusterNodes has a bad node '"
                + node
                + "': a host and a port from 1 to 65535 are needed");
      }
    }
    return new LinkedHashSet<>(nodes);
  }
}
