package org.fencekit.spring.example;

import org.fencekit.fulfilment.Provider;
import org.fencekit.store.Item;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An application that fulfils Stripe Checkout with fencekit: this class and {@code
 * application.properties} are all of it. Copy both; replace the provider's body with the call to
 * whoever delivers what was paid for (passing {@code purchase.idempotencyKey()} on), which fencekit
 * makes once per paid session.
 */
@SpringBootApplication
public class ExampleApplication {

  /** What buys the item: called once per paid Checkout session. */
  @Bean
  Provider provider() {
    return purchase ->
        new Item(purchase.idempotencyKey(), purchase.quantity() + " x " + purchase.productId());
  }

  /** Starts the application. */
  public static void main(String[] args) {
    SpringApplication.run(ExampleApplication.class, args);
  }
}
