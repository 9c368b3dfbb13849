package org.fencekit.server;

import com.stripe.StripeClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.MicrometerMetrics;
import org.fencekit.fulfilment.Provider;
import org.fencekit.store.OrderStore;
import org.fencekit.webhook.MetadataMapping;
import org.fencekit.webhook.SessionMapping;
import org.fencekit.webhook.SettingChecks;
import org.fencekit.webhook.SettingNames;
import org.fencekit.webhook.StripeSignature;
import org.fencekit.webhook.SuccessPage;
import org.fencekit.webhook.WebhookCore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Stripe Checkout webhook endpoint over an {@link OrderStore}, on Jetty: {@code POST /webhook}
 * (signature checked, mapped, fulfilled by a {@link FulfilmentHandler}), {@code GET
 * /checkout/success?session_id=...} (the {@link SuccessPage}, when {@link Builder#successPage} is
 * set), {@code GET /health} and {@code GET /metrics} (Prometheus text).
 *
 * <ul>
 *   <li>a body is read without holding a thread, and must arrive whole within {@code bodyTimeout}
 *       (else 408) with no gap longer than {@code idleTimeout}; a body over 1 MiB is refused with
 *       413 before it is read whole; so a slow client holds a connection, never a delivery slot;
 *   <li>at most {@code maxConcurrentRequests} deliveries are handled at once, on a pool of their
 *       own; others wait up to {@code queueTime} and are then answered 503 with {@code
 *       Retry-After}; {@code /health} and {@code /metrics} never wait behind them;
 *   <li>every answer, Jetty's own included, is one line of JSON;
 *   <li>{@link #close()} shuts down gracefully: new deliveries are answered 503 while those in
 *       flight finish (up to {@code stopTimeout}), then the server and the handler stop.
 * </ul>
 */
public final class WebhookServer implements AutoCloseable {

  /** How long {@link #close()} waits for deliveries in flight: 120 s. */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(120);

  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);

  private final Server server;
  private final ServerConnector connector;
  private final WebhookCore core;
  private final WebhookEndpoint endpoint;
  private final FulfilmentHandler handler;
  private final PrometheusMeterRegistry registry;
  private final Duration stopTimeout;
  private boolean closed;

  private WebhookServer(Builder builder) {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    FulfilmentHandler.Builder handlerBuilder =
        FulfilmentHandler.builder(builder.store, builder.provider)
            .clock(builder.clock)
            .metrics(new MicrometerMetrics(registry));
    this.handler = builder.handlerSettings.apply(handlerBuilder).build();
    try {
      this.core = builder.core.handler(handler).meters(registry).build();
    } catch (RuntimeException e) {
      handler.close();
      registry.close();
      throw e;
    }
    this.stopTimeout = builder.stopTimeout;
    // Jetty's threads only read, check and answer; deliveries run on the endpoint's own pool.
    QueuedThreadPool threads = new QueuedThreadPool(builder.threads, Math.min(4, builder.threads));
    threads.setName("fencekit-webhook");
    threads.setDaemon(true);
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    this.connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setHost(builder.host);
    connector.setPort(builder.port);
    connector.setIdleTimeout(builder.idleTimeout.toMillis());
    server.addConnector(connector);
    this.endpoint = new WebhookEndpoint(core, builder.store, registry);
    server.setHandler(endpoint);
    server.setErrorHandler(new JsonErrorHandler(core));
    server.setStopTimeout(0); // close() drains in-flight deliveries itself
  }

  /**
   * A builder for a server over {@code store} that buys with {@code provider}.
   *
   * @param store where orders live; not closed by the server
   * @param provider what buys the items
   */
  public static Builder builder(OrderStore store, Provider provider) {
    return new Builder(store, provider);
  }

  /**
   * Starts listening.
   *
   * @return this server
   * @throws IllegalStateException if the port cannot be bound
   */
  public WebhookServer start() {
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception ignored) {
        // already failed to start
      }
      endpoint.release();
      handler.close();
      throw new IllegalStateException(cannotListen(e), e);
    }
    LOG.info("listening on {}:{}", connector.getHost(), port());
    return this;
  }

  /** Why the connector could not bind, with what to do. */
  private String cannotListen(Exception e) {
    String host = connector.getHost();
    String where = "cannot listen on " + host + ":" + connector.getPort();
    // Jetty wraps the BindException ("Failed to bind to ..."): the cause says which it was
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      String what = String.valueOf(cause.getMessage());
      if (cause instanceof BindException && what.toLowerCase(Locale.ROOT).contains("in use")) {
        return where + ": the port is taken (" + what + "); set FENCEKIT_PORT to another";
      }
    }
    String addresses = " (0.0.0.0 for all, 127.0.0.1 for this machine only)";
    try {
      InetAddress.getByName(host);
    } catch (UnknownHostException unknown) {
      return where
          + ": the host "
          + host
          + " does not resolve to an address; set FENCEKIT_HOST to an address of this machine"
          + addresses;
    }
    return where
        + ": the host "
        + host
        + " is not an address this machine can bind ("
        + e
        + "); set FENCEKIT_HOST to one of its addresses"
        + addresses;
  }

  /** The port the server listens on (the one chosen, when built with port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** The Micrometer registry behind {@code /metrics}, for your own meters. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * Shuts down gracefully: new deliveries get 503 at once; those in flight finish, for up to the
   * stop timeout; then the server and the handler stop. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    core.drainAndAwait(stopTimeout);
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("jetty did not stop cleanly: {}", e.toString());
    } finally {
      endpoint.release();
      handler.close();
      registry.close();
    }
  }

  /** Builds a {@link WebhookServer}; {@link #build()} names the first bad setting. */
  public static final class Builder {

    private final OrderStore store;
    private final Provider provider;
    private final WebhookCore.Builder core = WebhookCore.builder();
    private final List<String> secrets = new ArrayList<>();
    private String host = "0.0.0.0";
    private int port = 8080;
    private Clock clock = Clock.systemUTC();
    private int threads = 32;
    private Duration idleTimeout = Duration.ofSeconds(30);
    private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
    private UnaryOperator<FulfilmentHandler.Builder> handlerSettings = b -> b;

    private Builder(OrderStore store, Provider provider) {
      this.store = Objects.requireNonNull(store, "store");
      this.provider = Objects.requireNonNull(provider, "provider");
    }

    /**
     * A webhook signing secret ({@code whsec_...}); add several while rotating: a delivery signed
     * with any of them is accepted.
     */
    public Builder secret(String secret) {
      Objects.requireNonNull(secret, "secret");
      if (secret.isBlank()) {
        throw new IllegalArgumentException("secret must not be blank");
      }
      secrets.add(secret.trim());
      return this;
    }

    /** The address to listen on; {@code 0.0.0.0} (every interface) by default. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port; 8080 by default; 0 picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * The clock signatures' timestamps and leases are read against; the system clock by default.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      core.clock(clock);
      return this;
    }

    /**
     * How far a signature's timestamp may lie from the clock; {@link
     * WebhookCore#DEFAULT_TOLERANCE}.
     */
    public Builder tolerance(Duration tolerance) {
      core.tolerance(tolerance);
      return this;
    }

    /** How a Checkout session becomes an order; {@link MetadataMapping} by default. */
    public Builder mapping(SessionMapping mapping) {
      core.mapping(mapping);
      return this;
    }

    /**
     * Jetty's threads, which read requests, check signatures and answer {@code /health} and {@code
     * /metrics}; 32 by default. Deliveries run on a pool of their own ({@link
     * #maxConcurrentRequests}).
     */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /**
     * Deliveries handled at once (the delivery slots); {@link WebhookCore#DEFAULT_SLOTS} by
     * default; more wait up to {@link #queueTime}, then get 503 with {@code Retry-After}.
     */
    public Builder maxConcurrentRequests(int maxConcurrentRequests) {
      core.slots(maxConcurrentRequests);
      return this;
    }

    /** How long a connection may sit idle (a slow client) before it is closed; 30 s by default. */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
      return this;
    }

    /**
     * How long a delivery's whole body may take to arrive after its headers; {@link
     * WebhookCore#DEFAULT_BODY_TIMEOUT} by default. A slower one is answered 408 and its connection
     * closed.
     */
    public Builder bodyTimeout(Duration bodyTimeout) {
      core.bodyTimeout(bodyTimeout);
      return this;
    }

    /**
     * How long a delivery may wait for a slot before it is answered 503; {@link
     * WebhookCore#DEFAULT_QUEUE_TIME} by default.
     */
    public Builder queueTime(Duration queueTime) {
      core.queueTime(queueTime);
      return this;
    }

    /**
     * How long {@link WebhookServer#close()} waits for deliveries in flight; {@link
     * #DEFAULT_STOP_TIMEOUT} by default.
     */
    public Builder stopTimeout(Duration stopTimeout) {
      this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
      return this;
    }

    /**
     * Serves the success page ({@link SuccessPage}, {@code GET /checkout/success?session_id=...})
     * with this client, whose API key fixes the account and mode; without one that route answers
     * 404 {@code success_page_off}.
     */
    public Builder successPage(StripeClient stripe) {
      core.successPage(stripe);
      return this;
    }

    /**
     * Further settings of the handler (lease, heartbeat, provider timeout, orphan listener, ...),
     * applied to a builder that already has the store, the provider, the clock and the metrics.
     */
    public Builder handler(UnaryOperator<FulfilmentHandler.Builder> settings) {
      this.handlerSettings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * The server, not yet started.
     *
     * @throws IllegalArgumentException naming the first bad setting
     */
    public WebhookServer build() {
      core.secrets(StripeSignature.secrets(SettingNames.SERVER.secret(), secrets));
      SettingChecks.within("port", port, 0, 65_535);
      SettingChecks.within("threads", threads, 4, 1_000);
      SettingChecks.positive("idleTimeout", idleTimeout);
      if (stopTimeout.isNegative()) {
        throw new IllegalArgumentException("stopTimeout must not be negative, got " + stopTimeout);
      }
      return new WebhookServer(this);
    }
  }
}
