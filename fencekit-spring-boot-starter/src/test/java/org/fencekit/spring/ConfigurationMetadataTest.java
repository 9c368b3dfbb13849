package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;

/**
 * The defaults an IDE shows for fencekit's properties are the ones the starter uses. The properties
 * take their defaults from {@code WebhookCore}'s and {@code FulfilmentHandler}'s constants, which
 * the configuration processor cannot read, so {@code additional-spring-configuration-metadata.json}
 * states them for the IDE; this test holds the two together.
 */
class ConfigurationMetadataTest {

  @Test
  void everyDefaultInTheMetadataIsTheOneThePropertiesUse() throws IOException {
    Map<String, JsonElement> defaults = new HashMap<>();
    try (Reader reader =
        new InputStreamReader(
            Objects.requireNonNull(
                getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json"),
                "the starter's generated configuration metadata"),
            StandardCharsets.UTF_8)) {
      for (JsonElement property :
          JsonParser.parseReader(reader).getAsJsonObject().getAsJsonArray("properties")) {
        JsonObject p = property.getAsJsonObject();
        defaults.put(p.get("name").getAsString(), p.get("defaultValue"));
      }
    }
    FencekitProperties properties = new FencekitProperties();
    assertDuration(defaults, "fencekit.lease", properties.getLease());
    assertDuration(defaults, "fencekit.provider-timeout", properties.getProviderTimeout());
    assertDuration(defaults, "fencekit.stripe.tolerance", properties.getStripe().getTolerance());
    assertDuration(defaults, "fencekit.webhook.queue-time", properties.getWebhook().getQueueTime());
    assertDuration(
        defaults, "fencekit.webhook.body-timeout", properties.getWebhook().getBodyTimeout());
    assertDuration(
        defaults, "fencekit.webhook.stop-timeout", properties.getWebhook().getStopTimeout());
    assertEquals(
        properties.getWebhook().getMaxConcurrentRequests(),
        defaults.get("fencekit.webhook.max-concurrent-requests").getAsInt(),
        "fencekit.webhook.max-concurrent-requests");
    assertEquals(
        properties.getWebhook().getPath(), defaults.get("fencekit.webhook.path").getAsString());
  }

  private static void assertDuration(
      Map<String, JsonElement> defaults, String name, java.time.Duration used) {
    JsonElement shown = defaults.get(name);
    assertEquals(
        used,
        shown == null ? null : DurationStyle.detectAndParse(shown.getAsString()),
        name + ": the metadata's default (" + shown + ") is not the one the starter uses");
  }
}
