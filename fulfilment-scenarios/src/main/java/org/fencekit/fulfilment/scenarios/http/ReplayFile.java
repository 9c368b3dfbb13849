package org.fencekit.fulfilment.scenarios.http;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A failed scenario, written so {@code --replay FILE} plays it again alone: the scenario's id, the
 * lease, the steering of each order's provider calls, the shape of its session ids (a replay makes
 * new ones, so the endpoint has not seen them), the problem and the timeline. The steering is the
 * scenario's own (each scenario steers the same way every run); the file shows it so the failure
 * can be read without the runner.
 */
final class ReplayFile {

  private static final Gson GSON =
      new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

  /**
   * What a replay file asks for.
   *
   * @param scenario the scenario to play
   * @param leaseMillis the lease the failed run used
   */
  record Request(HttpScenario scenario, long leaseMillis) {}

  private ReplayFile() {}

  /** Writes {@code outcome}'s replay into {@code directory}; returns the file. */
  static Path write(Path directory, Outcome outcome, RunContext context, Redactor redactor)
      throws IOException {
    HttpScenario scenario = outcome.scenario();
    JsonObject json = new JsonObject();
    json.addProperty("scenario", scenario.id());
    json.addProperty("rule", scenario.rule());
    json.addProperty("lease_ms", context.lease().toMillis());
    json.addProperty("run", context.nonce());
    json.addProperty(
        "session_id_shape", "cs_test_<run nonce>_" + scenario.shortId() + "_<order name>");
    JsonObject orders = new JsonObject();
    outcome.orders().forEach(orders::addProperty);
    json.add("session_ids", orders);
    JsonObject steering = new JsonObject();
    outcome.steering().forEach((order, calls) -> steering.add(order, array(calls, redactor)));
    json.add("steering", steering);
    json.addProperty("problem", redactor.clean(outcome.reason()));
    json.add("timeline", array(outcome.timeline(), redactor));
    json.addProperty(
        "rerun",
        "java -jar fencekit-scenarios.jar --endpoint <url> --secret <secret> --provider-port <port>"
            + " --replay <this file>");
    Files.createDirectories(directory);
    Path file =
        directory.resolve(
            "fencekit-replay-" + scenario.shortId() + "-" + context.nonce() + ".json");
    Files.writeString(file, GSON.toJson(json) + "\n", StandardCharsets.UTF_8);
    return file;
  }

  /**
   * Reads a replay file.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  static Request read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--replay: cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
    }
    try {
      JsonObject json = JsonParser.parseString(text).getAsJsonObject();
      JsonElement id = json.get("scenario");
      HttpScenario scenario =
          id == null || !id.isJsonPrimitive() ? null : HttpScenario.byName(id.getAsString());
      if (scenario == null) {
        throw new IllegalArgumentException(
            "--replay: " + file + " names no scenario the runner plays (field \"scenario\")");
      }
      JsonElement lease = json.get("lease_ms");
      long leaseMillis = lease == null || !lease.isJsonPrimitive() ? 0 : lease.getAsLong();
      return new Request(scenario, leaseMillis);
    } catch (JsonParseException | IllegalStateException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "--replay: " + file + " is not a replay file (not the JSON the runner writes)");
    }
  }

  private static JsonArray array(List<String> lines, Redactor redactor) {
    JsonArray array = new JsonArray();
    lines.forEach(line -> array.add(redactor.clean(line)));
    return array;
  }
}
