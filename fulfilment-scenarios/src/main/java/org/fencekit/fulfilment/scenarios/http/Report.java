package org.fencekit.fulfilment.scenarios.http;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.fencekit.fulfilment.scenarios.http.Outcome.Verdict;

/**
 * A black-box run's report: a table of the scenarios (held, FAILED or skipped, and why), each
 * failure's timeline and replay file, and what could not be judged from outside; or the same as one
 * JSON document. Everything passes through the {@link Redactor}.
 */
record Report(RunContext context, List<Outcome> outcomes, long millis, Redactor redactor) {

  private static final Gson GSON =
      new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().serializeNulls().create();

  Report {
    outcomes = List.copyOf(outcomes);
  }

  /** Whether a scenario failed. */
  boolean failed() {
    return count(Verdict.FAILED) > 0;
  }

  private long count(Verdict verdict) {
    return outcomes.stream().filter(o -> o.verdict() == verdict).count();
  }

  /** The report as text: the table, the failures, what was not judged, a total. */
  String text() {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "fencekit-scenarios against %s (lease %sms, provider %s, run %s)\n\n",
            context.endpoints().stream().map(URI::toString).collect(Collectors.joining(" and ")),
            context.lease().toMillis(),
            context.provider().baseUrl(),
            context.nonce()));
    int width = outcomes.stream().mapToInt(o -> o.scenario().id().length()).reduce(8, Math::max);
    String row = "%-" + width + "s  %-7s  %s\n";
    out.append(String.format(row, "scenario", "result", "reason"));
    for (Outcome outcome : outcomes) {
      out.append(
          String.format(row, outcome.scenario().id(), outcome.verdict().text(), outcome.reason()));
    }
    for (Outcome outcome : outcomes) {
      if (outcome.verdict() != Verdict.FAILED) {
        continue;
      }
      List<String> orders = new ArrayList<>();
      outcome.orders().forEach((name, id) -> orders.add(name + "=" + id));
      out.append(
          String.format(
              "\n%s FAILED: %s\n  rule: %s\n  if this fails, check: %s\n  orders: %s\n"
                  + "  what happened (clock since the scenario started):\n",
              outcome.scenario().id(),
              outcome.reason(),
              outcome.scenario().rule(),
              outcome.scenario().ifThisFails(),
              String.join(", ", orders)));
      for (String line : outcome.timeline()) {
        out.append("  ").append(line).append('\n');
      }
      if (outcome.replayFile() != null) {
        out.append(
            String.format(
                "  replay: %s (play it again alone: --replay %s)\n",
                outcome.replayFile(), outcome.replayFile()));
      }
    }
    out.append(
        "\nNot judged from outside (the in-JVM kit, FulfilmentScenarios, reads the store and"
            + " judges these):\n");
    for (Outcome outcome : outcomes) {
      if (!outcome.scenario().notJudged().isEmpty()) {
        out.append(
            String.format(
                "  %s: %s\n", outcome.scenario().shortId(), outcome.scenario().notJudged()));
      }
    }
    HttpScenario.NOT_PORTED.forEach(
        (id, why) ->
            out.append(
                String.format("  %s not played: %s\n", id.substring(0, id.indexOf('_')), why)));
    out.append(
        String.format(
            "\n%s held, %s FAILED, %s skipped in %ss\n",
            count(Verdict.HELD),
            count(Verdict.FAILED),
            count(Verdict.SKIPPED),
            Math.round(millis / 100.0) / 10.0));
    return redactor.clean(out.toString());
  }

  /** The report as one JSON document. */
  String json() {
    JsonObject json = new JsonObject();
    json.addProperty("endpoint", context.endpoint(1).toString());
    JsonArray endpoints = new JsonArray();
    context.endpoints().forEach(endpoint -> endpoints.add(endpoint.toString()));
    json.add("endpoints", endpoints);
    json.addProperty("lease_ms", context.lease().toMillis());
    json.addProperty("provider", context.provider().baseUrl());
    json.addProperty("run", context.nonce());
    json.addProperty("held", count(Verdict.HELD));
    json.addProperty("failed", count(Verdict.FAILED));
    json.addProperty("skipped", count(Verdict.SKIPPED));
    json.addProperty("millis", millis);
    JsonArray scenarios = new JsonArray();
    for (Outcome outcome : outcomes) {
      JsonObject scenario = new JsonObject();
      scenario.addProperty("id", outcome.scenario().id());
      scenario.addProperty("result", outcome.verdict().name().toLowerCase(java.util.Locale.ROOT));
      scenario.addProperty("reason", outcome.reason());
      scenario.addProperty("rule", outcome.scenario().rule());
      scenario.addProperty("not_judged", outcome.scenario().notJudged());
      scenario.addProperty("millis", outcome.millis());
      if (outcome.verdict() == Verdict.FAILED) {
        scenario.addProperty("if_this_fails", outcome.scenario().ifThisFails());
        JsonArray timeline = new JsonArray();
        outcome.timeline().forEach(timeline::add);
        scenario.add("timeline", timeline);
        scenario.addProperty(
            "replay_file", outcome.replayFile() == null ? null : outcome.replayFile().toString());
      }
      scenarios.add(scenario);
    }
    json.add("scenarios", scenarios);
    JsonObject notPlayed = new JsonObject();
    HttpScenario.NOT_PORTED.forEach(notPlayed::addProperty);
    json.add("not_played", notPlayed);
    return redactor.clean(GSON.toJson(json) + "\n");
  }
}
