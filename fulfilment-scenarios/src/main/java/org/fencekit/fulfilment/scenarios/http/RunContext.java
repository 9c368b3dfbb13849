package org.fencekit.fulfilment.scenarios.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;

/**
 * What every scenario of one black-box run shares: the endpoint's instances and how to reach, sign
 * for and crash them, the provider they buy from, the lease they claim with, and the run's nonce,
 * which makes every session id of the run new to the endpoint.
 *
 * @param endpoints the webhook URL of each instance (one or two), on one store
 * @param signer signs each delivery with the endpoint's secret
 * @param client posts the deliveries
 * @param provider the fake provider the endpoint buys from
 * @param control starts and crashes the first instance, where the runner can
 * @param lease the lease the endpoint claims with; every wait is a multiple of it
 * @param nonce a few hex digits, new each run
 */
record RunContext(
    List<URI> endpoints,
    StripeSigner signer,
    HttpClient client,
    ProviderServer provider,
    EndpointControl control,
    Duration lease,
    String nonce) {

  /**
   * The webhook URL of instance {@code instance} (1 or 2): with one instance, it plays both, and
   * the scenarios that cross two attempts cross them in one process.
   */
  URI endpoint(int instance) {
    return endpoints.get(Math.min(instance, endpoints.size()) - 1);
  }

  /** Whether the run plays two instances. */
  boolean twoInstances() {
    return endpoints.size() > 1;
  }

  /** How long a delivery may take before it counts as unanswered, as Stripe's would. */
  Duration deliveryTimeout() {
    return lease.multipliedBy(3).plusSeconds(10);
  }

  /** A multiple of the lease. */
  Duration leases(double factor) {
    return Duration.ofMillis(Math.round(lease.toMillis() * factor));
  }
}
