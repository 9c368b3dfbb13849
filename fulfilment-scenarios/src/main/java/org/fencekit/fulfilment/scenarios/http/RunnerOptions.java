package org.fencekit.fulfilment.scenarios.http;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The black-box runner's command line, as picocli reads it; {@link BlackBoxRunner} checks it. */
@Command(
    name = "fencekit-scenarios",
    mixinStandardHelpOptions = true,
    version = "fencekit-scenarios (fencekit 0.1.0)",
    sortOptions = false,
    description = {
      "Plays fencekit's failure scenarios against a running Stripe Checkout webhook endpoint, in"
          + " any language: it posts signed events, serves the provider the endpoint buys from,"
          + " and judges the answers and purchases it sees.",
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every scenario played held",
      "1:a scenario failed",
      "2:could not run (the endpoint does not answer, the provider port is taken)",
      "64:bad usage (the argument is named)"
    })
final class RunnerOptions {

  @Option(
      names = "--endpoint",
      required = true,
      paramLabel = "URL",
      description =
          "the webhook URL, e.g. http://127.0.0.1:8080/webhook; twice for two instances of the"
              + " endpoint on one store (the crossing scenarios then deliver to both)")
  List<String> endpoints = new ArrayList<>();

  @Option(
      names = "--secret",
      paramLabel = "WHSEC",
      defaultValue = "${env:STRIPE_WEBHOOK_SECRET}",
      description =
          "the endpoint's signing secret (default: $STRIPE_WEBHOOK_SECRET); never printed")
  String secret;

  @Option(
      names = "--provider-port",
      paramLabel = "PORT",
      defaultValue = "9099",
      description =
          "the loopback port the fake provider listens on (default ${DEFAULT-VALUE}; 0: a free one"
              + " other than the endpoint's)")
  int providerPort;

  @Option(
      names = "--lease",
      paramLabel = "DURATION",
      description = "the lease the endpoint claims with, e.g. 5s (from the file with --replay)")
  String lease;

  @Option(
      names = "--launch",
      paramLabel = "CMD",
      description =
          "start the endpoint with this shell command, and crash it (SIGKILL) and start"
              + " it again where a scenario needs a crash; once per --endpoint, in their order")
  List<String> launches = new ArrayList<>();

  @Option(
      names = "--restart-command",
      paramLabel = "CMD",
      description =
          "a shell command that crashes and restarts the (first) endpoint (instead of --launch)")
  String restartCommand;

  @Option(
      names = "--scenario",
      paramLabel = "ID",
      description =
          "play only these (an id such as s02_leaseOverrunCannotUndoProvisioned or s02);"
              + " repeatable")
  List<String> scenarios = new ArrayList<>();

  @Option(
      names = "--replay",
      paramLabel = "FILE",
      description = "play a replay file's scenario again, alone")
  Path replay;

  @Option(names = "--json", description = "print one JSON document (for CI) instead of the table")
  boolean json;

  @Option(
      names = "--replay-dir",
      paramLabel = "DIR",
      defaultValue = ".",
      description =
          "where failures' replay files and the launched endpoint's log go (default the"
              + " current directory)")
  Path replayDir;
}
