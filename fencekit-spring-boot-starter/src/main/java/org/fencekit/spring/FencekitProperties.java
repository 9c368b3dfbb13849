package org.fencekit.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.webhook.WebhookCore;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * fencekit's settings under {@code fencekit.*}: where orders live, the handler's lease and timings,
 * the webhook's path, secrets and limits, and the success page.
 */
@ConfigurationProperties("fencekit")
public class FencekitProperties {

  /**
   * Where orders live, as the webhook server's FENCEKIT_STORE and the admin command's --store take
   * it: sqlite:orders.db, jdbc:postgresql://host/db?user=..., jdbc:mysql://host/db?user=...,
   * redis://host:6379, redis-cluster:host:7001,host:7002 or etcd://host:2379,host:2379 (an etcd
   * cluster's members, then optionally /KEY_PREFIX). Unset: the store is kept over the
   * application's PostgreSQL DataSource.
   */
  private String store;

  /**
   * The lease each claim asks for: how long an order stays claimed by one delivery (1ms to 24h).
   */
  private Duration lease = FulfilmentHandler.DEFAULT_LEASE;

  /**
   * How often a running provider call's lease is extended; at most a third of the lease (unset: a
   * quarter of it).
   */
  private Duration heartbeat;

  /**
   * The longest one provider call may take; then its outcome is unknown and the order is failed for
   * Stripe's retry.
   */
  private Duration providerTimeout = FulfilmentHandler.DEFAULT_PROVIDER_TIMEOUT;

  private final Schema schema = new Schema();

  private final Webhook webhook = new Webhook();

  private final Stripe stripe = new Stripe();

  private final SuccessPage successPage = new SuccessPage();

  /** The store string, or {@code null}. */
  public String getStore() {
    return store;
  }

  /** Sets the store string. */
  public void setStore(String store) {
    this.store = store;
  }

  /** The lease. */
  public Duration getLease() {
    return lease;
  }

  /** Sets the lease. */
  public void setLease(Duration lease) {
    this.lease = lease;
  }

  /** The heartbeat, or {@code null} for a quarter of the lease. */
  public Duration getHeartbeat() {
    return heartbeat;
  }

  /** Sets the heartbeat. */
  public void setHeartbeat(Duration heartbeat) {
    this.heartbeat = heartbeat;
  }

  /** The provider timeout. */
  public Duration getProviderTimeout() {
    return providerTimeout;
  }

  /** Sets the provider timeout. */
  public void setProviderTimeout(Duration providerTimeout) {
    this.providerTimeout = providerTimeout;
  }

  /** The schema settings. */
  public Schema getSchema() {
    return schema;
  }

  /** The webhook's settings. */
  public Webhook getWebhook() {
    return webhook;
  }

  /** The Stripe settings. */
  public Stripe getStripe() {
    return stripe;
  }

  /** The success page's settings. */
  public SuccessPage getSuccessPage() {
    return successPage;
  }

  /** {@code fencekit.schema.*}: fencekit's tables. */
  public static class Schema {

    /**
     * Whether fencekit creates its tables (or upgrades an older schema, or an older Redis key
     * layout) at start-up. Unset: yes for a fencekit.store, as the webhook server does; no over the
     * application's DataSource, whose migrations the application runs (set true to let fencekit).
     */
    private Boolean create;

    /** Whether to create the schema, or {@code null} for the default. */
    public Boolean getCreate() {
      return create;
    }

    /** Sets whether to create the schema. */
    public void setCreate(Boolean create) {
      this.create = create;
    }
  }

  /** {@code fencekit.webhook.*}: the endpoint Stripe posts to. */
  public static class Webhook {

    /** The path Stripe posts Checkout events to (the endpoint's URL in the Stripe dashboard). */
    private String path = "/stripe/webhook";

    /**
     * Deliveries (and success-page landings) handled at once, on a pool of fencekit's own; more
     * wait up to queue-time, then are answered 503 with Retry-After.
     */
    private int maxConcurrentRequests = WebhookCore.DEFAULT_SLOTS;

    /** How long a delivery may wait for a free slot before it is answered 503 overloaded. */
    private Duration queueTime = WebhookCore.DEFAULT_QUEUE_TIME;

    /**
     * How long a delivery's whole body may take to arrive; a slower one is answered 408. Checked
     * between reads: the servlet container's connection timeout bounds each read.
     */
    private Duration bodyTimeout = WebhookCore.DEFAULT_BODY_TIMEOUT;

    /**
     * How long the application's shutdown waits for the deliveries in flight before it stops them
     * (Stripe retries those).
     */
    private Duration stopTimeout = Duration.ofSeconds(30);

    /** The webhook's path. */
    public String getPath() {
      return path;
    }

    /** Sets the webhook's path. */
    public void setPath(String path) {
      this.path = path;
    }

    /** The delivery slots. */
    public int getMaxConcurrentRequests() {
      return maxConcurrentRequests;
    }

    /** Sets the delivery slots. */
    public void setMaxConcurrentRequests(int maxConcurrentRequests) {
      this.maxConcurrentRequests = maxConcurrentRequests;
    }

    /** The queue time. */
    public Duration getQueueTime() {
      return queueTime;
    }

    /** Sets the queue time. */
    public void setQueueTime(Duration queueTime) {
      this.queueTime = queueTime;
    }

    /** The body timeout. */
    public Duration getBodyTimeout() {
      return bodyTimeout;
    }

    /** Sets the body timeout. */
    public void setBodyTimeout(Duration bodyTimeout) {
      this.bodyTimeout = bodyTimeout;
    }

    /** The stop timeout. */
    public Duration getStopTimeout() {
      return stopTimeout;
    }

    /** Sets the stop timeout. */
    public void setStopTimeout(Duration stopTimeout) {
      this.stopTimeout = stopTimeout;
    }
  }

  /** {@code fencekit.stripe.*}: the Stripe account. */
  public static class Stripe {

    /**
     * The webhook endpoint's signing secret (whsec_..., from the Stripe dashboard or `stripe
     * listen`); several, comma-separated, while rotating: a delivery signed with any is accepted.
     * Required.
     */
    private List<String> webhookSecret = new ArrayList<>();

    /**
     * How far a signature's timestamp may lie from the clock (Stripe's libraries use 5 minutes).
     */
    private Duration tolerance = WebhookCore.DEFAULT_TOLERANCE;

    /**
     * A secret or restricted API key (sk_... or rk_..., read access to Checkout sessions) the
     * success page reads sessions with; its account and mode are the only ones the page fulfils.
     * Unset: the success page answers 404 success_page_off.
     */
    private String apiKey;

    /** Stripe's API, where the success page reads sessions (another only for tests). */
    private String apiBase = "https://api.stripe.com";

    /** The signing secrets. */
    public List<String> getWebhookSecret() {
      return webhookSecret;
    }

    /** Sets the signing secrets. */
    public void setWebhookSecret(List<String> webhookSecret) {
      this.webhookSecret = webhookSecret;
    }

    /** The tolerance. */
    public Duration getTolerance() {
      return tolerance;
    }

    /** Sets the tolerance. */
    public void setTolerance(Duration tolerance) {
      this.tolerance = tolerance;
    }

    /** The API key, or {@code null}. */
    public String getApiKey() {
      return apiKey;
    }

    /** Sets the API key. */
    public void setApiKey(String apiKey) {
      this.apiKey = apiKey;
    }

    /** The API base. */
    public String getApiBase() {
      return apiBase;
    }

    /** Sets the API base. */
    public void setApiBase(String apiBase) {
      this.apiBase = apiBase;
    }
  }

  /** {@code fencekit.success-page.*}: Stripe's second entry point. */
  public static class SuccessPage {

    /**
     * The path the success page's backend calls with ?session_id=cs_... (a GET answering JSON:
     * fulfilled, processing, unpaid, failed).
     */
    private String path = "/checkout/success";

    /** The success page's path. */
    public String getPath() {
      return path;
    }

    /** Sets the success page's path. */
    public void setPath(String path) {
      this.path = path;
    }
  }
}
