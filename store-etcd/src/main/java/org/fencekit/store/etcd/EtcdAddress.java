package org.fencekit.store.etcd;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fencekit.store.spi.Validate;

/**
 * Where a store's etcd is, as the builder takes it: the members' endpoints ({@code
 * http://host:port,...}) or one URL, {@code etcd://host:port,host:port[/prefix]}, parsed.
 *
 * @param endpoints the members, {@code http://host:port} each
 * @param keyPrefix the URL's key prefix, or {@code null} if it names none
 */
record EtcdAddress(List<URI> endpoints, String keyPrefix) {

  /** The form {@link #parseUrl} reads, for messages. */
  static final String URL_FORM = "etcd://HOST:PORT,HOST:PORT[/KEY_PREFIX]";

  private static final Pattern HOST_PORT =
      Pattern.compile("([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+]):(\\d{1,5})");

  /**
   * {@code etcd://host:port,host:port[/prefix]}.
   *
   * @throws IllegalArgumentException naming {@code url}
   */
  static EtcdAddress parseUrl(String url) {
    Validate.notNull("url", url);
    if (!url.regionMatches(true, 0, "etcd://", 0, 7)) {
      throw new IllegalArgumentException(
          "url must look like " + URL_FORM + ", got " + Validate.quote(url));
    }
    String rest = url.substring(7);
    int slash = rest.indexOf('/');
    String members = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 || slash == rest.length() - 1 ? null : rest.substring(slash + 1);
    if (prefix != null) {
      Validate.keyPrefix("url's key prefix", prefix);
    }
    List<URI> endpoints = new ArrayList<>();
    for (String member : members.split(",", -1)) {
      endpoints.add(member("url", member.trim(), url));
    }
    return new EtcdAddress(List.copyOf(endpoints), prefix);
  }

  /**
   * The members as {@code http://host:port,http://host:port} (what etcdctl's {@code --endpoints}
   * takes; a plain {@code host:port} is read as {@code http://host:port}).
   *
   * @throws IllegalArgumentException naming {@code endpoints}
   */
  static List<URI> parseEndpoints(String text) {
    Validate.notNull("endpoints", text);
    List<URI> endpoints = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String member = part.trim();
      if (member.regionMatches(true, 0, "https://", 0, 8)) {
        throw new IllegalArgumentException(
            "endpoints: TLS (https://) is not supported yet, got " + Validate.quote(member));
      }
      if (member.regionMatches(true, 0, "http://", 0, 7)) {
        member = member.substring(7);
      }
      if (member.endsWith("/")) {
        member = member.substring(0, member.length() - 1);
      }
      endpoints.add(member("endpoints", member, text));
    }
    return List.copyOf(endpoints);
  }

  private static URI member(String property, String hostPort, String whole) {
    Matcher matcher = HOST_PORT.matcher(hostPort);
    int port = matcher.matches() ? Integer.parseInt(matcher.group(2)) : 0;
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          String.format(
              "%s must name each member as host:port (port 1 to 65535), separated by commas, as in"
                  + " %s; %s is not such a member in %s",
              property,
              property.equals("url")
                  ? "etcd://127.0.0.1:2379,127.0.0.1:2381"
                  : "http://127.0.0.1:2379,http://127.0.0.1:2381",
              Validate.quote(hostPort),
              Validate.quote(whole)));
    }
    return URI.create("http://" + matcher.group(1) + ":" + port);
  }
}
