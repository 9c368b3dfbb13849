package org.fencekit.webhook;

import java.util.Objects;

/**
 * The names of the settings an answer or a refusal to start tells the operator to fix, as the
 * application calls them: the core's answers are the same from every adapter but for these names.
 *
 * @param secret the webhook signing secret's ({@code STRIPE_WEBHOOK_SECRET} for the server)
 * @param apiKey the Stripe API key's, which turns the success page on ({@code STRIPE_API_KEY})
 */
public record SettingNames(String secret, String apiKey) {

  /** The webhook server's: its environment variables. */
  public static final SettingNames SERVER =
      new SettingNames("STRIPE_WEBHOOK_SECRET", "STRIPE_API_KEY");

  /** Checks both are present. */
  public SettingNames {
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(apiKey, "apiKey");
  }
}
