package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.fencekit.testsupport.StoreFiles;
import org.junit.jupiter.api.Test;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter over a SQLite file of its own, named by {@code fencekit.store}; and that file made
 * immutable, deleted or replaced under the running application.
 */
class SqliteStarterTest extends StarterContract {

  private static Path file;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) throws IOException {
    Path directory = Files.createTempDirectory("fencekit-starter");
    file = directory.resolve("orders.db");
    properties.add("fencekit.store", () -> "sqlite:" + file);
    properties.add("management.endpoint.health.show-details", () -> "always");
    // this module's tests have spring-boot-starter-jdbc (for PostgreSQL) and no embedded database
    properties.add("spring.autoconfigure.exclude", () -> DATA_SOURCE_AUTO_CONFIGURATION);
    stripe(properties);
  }

  /** The {@code fencekit} component of {@code /actuator/health}, and the status of the whole. */
  private String fencekitHealth() {
    HttpResponse<String> health = get("/actuator/health");
    JsonObject fencekit =
        JsonParser.parseString(health.body())
            .getAsJsonObject()
            .getAsJsonObject("components")
            .getAsJsonObject("fencekit");
    return health.statusCode() + " " + fencekit;
  }

  private HttpResponse<String> deliver(String sessionId) {
    return deliveries()
        .deliver(
            "/stripe/webhook",
            CheckoutEvent.completed("evt_" + sessionId, PaymentStatus.PAID, order(sessionId)));
  }

  @Test
  void theIndicatorIsDownAndDeliveriesAre503WhileTheFileIsImmutable() {
    String sessionId = "cs_test_immutable" + Long.toHexString(System.nanoTime());
    StoreFiles.Immutable immutable = StoreFiles.immutable(file);
    try {
      String down = fencekitHealth();
      assertTrue(down.startsWith("503 ") && down.contains("\"DOWN\""), down);
      assertTrue(down.contains("can no longer be written"), down);
      HttpResponse<String> delivery = deliver(sessionId);
      assertEquals(503, delivery.statusCode(), delivery.body());
    } finally {
      immutable.close();
    }
    assertEquals(0, provider.purchases(sessionId), "nothing bought");
    String up = fencekitHealth();
    assertTrue(up.startsWith("200 ") && up.contains("\"UP\""), up);
  }

  @Test
  @DirtiesContext(methodMode = DirtiesContext.MethodMode.AFTER_METHOD)
  void theIndicatorIsDownAndDeliveriesAre503OnceTheFileIsDeletedOrReplaced() {
    String sessionId = "cs_test_deleted" + Long.toHexString(System.nanoTime());
    StoreFiles.delete(file);
    String deleted = fencekitHealth();
    assertTrue(deleted.startsWith("503 ") && deleted.contains("was deleted"), deleted);
    assertEquals(503, deliver(sessionId).statusCode());
    SqliteOrderStore.builder(file).build().close();
    String replaced = fencekitHealth();
    assertTrue(replaced.startsWith("503 ") && replaced.contains("no longer the file"), replaced);
    assertEquals(503, deliver(sessionId).statusCode());
    assertEquals(0, provider.purchases(sessionId), "nothing bought into a file no path reaches");
  }
}
