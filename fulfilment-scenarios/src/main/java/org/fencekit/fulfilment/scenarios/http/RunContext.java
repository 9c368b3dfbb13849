package org.fencekit.fulfilment.scenarios.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * What every scenario of one black-box run shares: the endpoint and how to reach, sign for and
 * crash it, the provider it buys from, the lease it claims with, and the run's nonce, which makes
 * every session id of the run new to the endpoint.
 *
 * @param endpoint the webhook URL
 * @param signer signs each delivery with the endpoint's secret
 * @param client posts the deliveries
 * @param provider the fake provider the endpoint buys from
 * @param control starts and crashes the endpoint, where the runner can
 * @param lease the lease the endpoint claims with; every wait is a multiple of it
 * @param nonce a few hex digits, new each run
 */
record RunContext(
    URI endpoint,
    StripeSigner signer,
    HttpClient client,
    ProviderServer provider,
    EndpointControl control,
    Duration lease,
    String nonce) {

  /** How long a delivery may take before it counts as unanswered, as Stripe's would. */
  Duration deliveryTimeout() {
    return lease.multipliedBy(3).plusSeconds(10);
  }

  /** A multiple of the lease. */
  Duration leases(double factor) {
    return Duration.ofMillis(Math.round(lease.toMillis() * factor));
  }
}
