package com.example.shop;

import org.fencekit.fulfilment.Provider;
import org.fencekit.store.Item;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A shop that fulfils Stripe Checkout with fencekit: this class and application.properties. */
@SpringBootApplication
public class ShopApplication {

  /** What buys the item: called once per paid Checkout session. */
  @Bean
  Provider provider() {
    return purchase ->
        new Item(purchase.idempotencyKey(), purchase.quantity() + " x " + purchase.productId());
  }

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
