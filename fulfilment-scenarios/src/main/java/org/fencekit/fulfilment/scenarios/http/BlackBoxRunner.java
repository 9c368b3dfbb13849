package org.fencekit.fulfilment.scenarios.http;

import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.fencekit.fulfilment.scenarios.http.Outcome.Verdict;
import org.fencekit.store.spec.DurationText;
import picocli.CommandLine;

/**
 * The black-box runner: fencekit's failure scenarios against a running Stripe Checkout webhook
 * endpoint, written in any language, over HTTP. Run it as {@code java -jar fencekit-scenarios.jar
 * --endpoint URL --secret WHSEC --provider-port 9099 --lease 5s}, or call {@link #run} from a test.
 *
 * <ol>
 *   <li>it serves the fake provider on loopback and waits until the endpoint answers (launching it
 *       first with {@code --launch});
 *   <li>it plays the scenarios that need no crash side by side, each on orders new to the endpoint,
 *       then those that crash the endpoint one at a time (skipped without {@code --launch} or
 *       {@code --restart-command});
 *   <li>it prints a table (or one JSON document with {@code --json}), the timeline of each failure,
 *       and writes a replay file for each, which {@code --replay FILE} plays again alone.
 * </ol>
 *
 * Exit codes: {@value #HELD} all held, {@value #FAILED} a scenario failed, {@value #CANNOT_RUN}
 * could not run, {@value #USAGE} bad usage. The secret is never printed.
 */
public final class BlackBoxRunner {

  /** Every scenario played held (some may have been skipped). */
  public static final int HELD = 0;

  /** A scenario failed. */
  public static final int FAILED = 1;

  /** The runner could not run: the endpoint does not answer, the provider port is taken. */
  public static final int CANNOT_RUN = 2;

  /** Bad usage: one line names the argument. */
  public static final int USAGE = 64;

  private static final Duration SHORTEST_LEASE = Duration.ofMillis(500);
  private static final Duration LONGEST_LEASE = Duration.ofMinutes(5);

  private BlackBoxRunner() {}

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(run(List.of(args), System.out, System.err));
  }

  /**
   * Runs the command line {@code args} (as {@code java -jar fencekit-scenarios.jar} would),
   * printing the report to {@code out} and problems to {@code err}.
   *
   * @return the exit code: {@link #HELD}, {@link #FAILED}, {@link #CANNOT_RUN} or {@link #USAGE}
   */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    Objects.requireNonNull(args, "args");
    RunnerOptions options = new RunnerOptions();
    CommandLine command = new CommandLine(options);
    Redactor redactor = new Redactor(null);
    try {
      command.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      return usage(err, redactor.clean(e.getMessage()));
    }
    if (command.isUsageHelpRequested()) {
      command.usage(out);
      return HELD;
    }
    if (command.isVersionHelpRequested()) {
      command.printVersionHelp(out);
      return HELD;
    }
    redactor = new Redactor(options.secret);
    Settings settings;
    try {
      settings = Settings.check(options);
    } catch (IllegalArgumentException e) {
      return usage(err, redactor.clean(e.getMessage()));
    }
    return play(settings, options, redactor, out, err);
  }

  /** The port {@code endpoint} names, or its scheme's default. */
  private static int port(URI endpoint) {
    if (endpoint.getPort() != -1) {
      return endpoint.getPort();
    }
    return "https".equals(endpoint.getScheme()) ? 443 : 80;
  }

  private static int usage(PrintStream err, String message) {
    err.println("fencekit-scenarios: " + message.strip().replace('\n', ' ') + " (see --help)");
    return USAGE;
  }

  /** The options, checked. */
  private record Settings(List<URI> endpoints, Duration lease, List<HttpScenario> scenarios) {

    static Settings check(RunnerOptions options) {
      if (options.endpoints.size() > 2) {
        throw new IllegalArgumentException(
            "--endpoint given "
                + options.endpoints.size()
                + " times: give one, or two for two instances of the endpoint on one store");
      }
      List<URI> endpoints = new ArrayList<>();
      for (String text : options.endpoints) {
        endpoints.add(endpoint(text));
      }
      if (endpoints.size() == 2 && endpoints.get(0).equals(endpoints.get(1))) {
        throw new IllegalArgumentException(
            "--endpoint given twice with the same URL: two instances need two URLs (ports)");
      }
      if (!options.launches.isEmpty() && options.launches.size() != endpoints.size()) {
        throw new IllegalArgumentException(
            String.format(
                "--launch given %s time(s) for %s --endpoint(s): give one --launch per --endpoint,"
                    + " in the same order, or none",
                options.launches.size(), endpoints.size()));
      }
      if (options.secret == null || options.secret.isBlank()) {
        throw new IllegalArgumentException(
            "--secret is missing: give the endpoint's signing secret (whsec_...), or set"
                + " STRIPE_WEBHOOK_SECRET");
      }
      if (options.providerPort < 0 || options.providerPort > 65_535) {
        throw new IllegalArgumentException(
            "--provider-port must be 0 to 65535, got " + options.providerPort);
      }
      if (!options.launches.isEmpty() && options.restartCommand != null) {
        throw new IllegalArgumentException(
            "--launch and --restart-command both given: give one (with --launch the runner"
                + " restarts the endpoint itself)");
      }
      List<HttpScenario> scenarios = new ArrayList<>();
      Duration lease = null;
      if (options.replay != null) {
        if (!options.scenarios.isEmpty()) {
          throw new IllegalArgumentException(
              "--replay and --scenario both given: a replay plays its own scenario");
        }
        ReplayFile.Request request = ReplayFile.read(options.replay);
        scenarios.add(request.scenario());
        if (request.leaseMillis() > 0) {
          lease = Duration.ofMillis(request.leaseMillis());
        }
      }
      if (options.lease != null) {
        lease = DurationText.parse("--lease", HttpRun.shorten(options.lease)); // echoed, bounded
      }
      if (lease == null) {
        throw new IllegalArgumentException(
            "--lease is missing: give the lease the endpoint claims orders with, e.g. --lease 5s");
      }
      if (lease.compareTo(SHORTEST_LEASE) < 0 || lease.compareTo(LONGEST_LEASE) > 0) {
        throw new IllegalArgumentException(
            "--lease must be 500ms to 5m (the scenarios wait real multiples of it), got "
                + lease.toMillis()
                + "ms");
      }
      Set<HttpScenario> chosen = new LinkedHashSet<>();
      for (String name : options.scenarios) {
        HttpScenario scenario = HttpScenario.byName(name.trim());
        if (scenario == null) {
          throw new IllegalArgumentException(
              "--scenario '"
                  + HttpRun.shorten(name)
                  + "' is not a scenario the runner plays; give an id or its first part: "
                  + Stream.of(HttpScenario.values())
                      .map(HttpScenario::shortId)
                      .collect(Collectors.joining(", ")));
        }
        chosen.add(scenario);
      }
      scenarios.addAll(chosen);
      if (scenarios.isEmpty()) {
        scenarios.addAll(List.of(HttpScenario.values()));
      }
      return new Settings(List.copyOf(endpoints), lease, scenarios);
    }

    private static URI endpoint(String text) {
      URI endpoint;
      try {
        endpoint = new URI(text);
      } catch (URISyntaxException e) {
        throw badEndpoint(text);
      }
      if (endpoint.getHost() == null
          || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))) {
        throw badEndpoint(text);
      }
      return endpoint;
    }

    private static IllegalArgumentException badEndpoint(String text) {
      return new IllegalArgumentException(
          "--endpoint must be an http(s) URL such as http://127.0.0.1:8080/webhook, got '"
              + HttpRun.shorten(text)
              + "'");
    }
  }

  private static int play(
      Settings settings,
      RunnerOptions options,
      Redactor redactor,
      PrintStream out,
      PrintStream err) {
    String nonce = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    Set<Integer> endpointPorts = new LinkedHashSet<>();
    for (URI endpoint : settings.endpoints()) {
      int endpointPort = port(endpoint);
      endpointPorts.add(endpointPort);
      if (options.providerPort == endpointPort) {
        err.println(
            "fencekit-scenarios: --provider-port "
                + endpointPort
                + " is the endpoint's port ("
                + endpoint.getHost()
                + ":"
                + endpointPort
                + "), and the endpoint buys from the provider: give another --provider-port, or 0"
                + " for a free one");
        return CANNOT_RUN;
      }
    }
    ProviderServer provider;
    try {
      provider = ProviderServer.start(options.providerPort, endpointPorts);
    } catch (IOException e) {
      err.println(
          "fencekit-scenarios: cannot serve the provider on 127.0.0.1:"
              + options.providerPort
              + ": "
              + (e instanceof BindException
                  ? "the port is taken; stop what listens there or give another --provider-port"
                  : e.getMessage()));
      return CANNOT_RUN;
    }
    Map<String, String> environment =
        Map.of(
            "STRIPE_WEBHOOK_SECRET",
            options.secret,
            "FENCEKIT_PROVIDER_URL",
            provider.baseUrl(),
            "FENCEKIT_LEASE",
            settings.lease().toMillis() + "ms");
    List<EndpointControl> controls = new ArrayList<>();
    for (int i = 0; i < settings.endpoints().size(); i++) {
      controls.add(
          new EndpointControl(
              settings.endpoints().get(i),
              options.launches.isEmpty() ? null : options.launches.get(i),
              i == 0 ? options.restartCommand : null,
              environment,
              options.replayDir.resolve(
                  "fencekit-scenarios-endpoint" + (i == 0 ? "" : "-" + (i + 1)) + ".log")));
    }
    try (provider) {
      try {
        for (EndpointControl control : controls) {
          control.start();
        }
      } catch (EndpointControl.EndpointDown e) {
        err.println("fencekit-scenarios: " + redactor.clean(e.getMessage()));
        return CANNOT_RUN;
      }
      RunContext context =
          new RunContext(
              settings.endpoints(),
              new StripeSigner(options.secret),
              HttpClient.newBuilder()
                  .version(HttpClient.Version.HTTP_1_1)
                  .connectTimeout(Duration.ofSeconds(5))
                  .build(),
              provider,
              controls.get(0),
              settings.lease(),
              nonce);
      long start = System.nanoTime();
      List<Outcome> outcomes = playAll(settings.scenarios(), context);
      List<Outcome> written = new ArrayList<>();
      for (Outcome outcome : outcomes) {
        if (outcome.verdict() == Verdict.FAILED) {
          try {
            outcome =
                outcome.withReplay(ReplayFile.write(options.replayDir, outcome, context, redactor));
          } catch (IOException e) {
            err.printf(
                "fencekit-scenarios: cannot write the replay of %s into %s: %s%n",
                outcome.scenario().id(), options.replayDir, e.getMessage());
          }
        }
        written.add(outcome);
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      Report report = new Report(context, written, millis, redactor);
      out.print(options.json ? report.json() : report.text());
      out.flush();
      return report.failed() ? FAILED : HELD;
    } finally {
      controls.forEach(EndpointControl::close);
    }
  }

  /** Plays the scenarios that need no crash side by side, then the others one at a time. */
  private static List<Outcome> playAll(List<HttpScenario> scenarios, RunContext context) {
    List<HttpScenario> together = scenarios.stream().filter(s -> !s.needsCrash()).toList();
    Map<HttpScenario, Outcome> done = new EnumMap<>(HttpScenario.class);
    if (!together.isEmpty()) {
      ExecutorService pool = Executors.newFixedThreadPool(together.size());
      try {
        List<Future<Outcome>> futures = new ArrayList<>();
        for (HttpScenario scenario : together) {
          futures.add(pool.submit(() -> playOne(scenario, context)));
        }
        for (int i = 0; i < together.size(); i++) {
          done.put(together.get(i), futures.get(i).get());
        }
      } catch (Exception e) {
        throw new IllegalStateException("a scenario's thread failed: " + e, e);
      } finally {
        pool.shutdownNow();
      }
    }
    for (HttpScenario scenario : scenarios) {
      if (scenario.needsCrash()) {
        done.put(
            scenario,
            context.control().canCrash()
                ? playOne(scenario, context)
                : Outcome.skipped(scenario, "needs --launch or --restart-command"));
      }
    }
    return scenarios.stream().map(done::get).toList();
  }

  private static Outcome playOne(HttpScenario scenario, RunContext context) {
    HttpRun run = new HttpRun(scenario, context);
    long start = System.nanoTime();
    Verdict verdict = Verdict.FAILED;
    String reason;
    try {
      scenario.play(run);
      reason = run.summary();
      verdict = Verdict.HELD;
    } catch (Breach breach) {
      reason = breach.getMessage();
    } catch (RuntimeException e) {
      reason = "the runner failed while playing it: " + e;
    } finally {
      run.orders().values().forEach(context.provider()::abandon); // free the endpoint's threads
    }
    List<String> timeline = List.of(run.timeline().toString().split("\n"));
    return new Outcome(
        scenario,
        verdict,
        reason,
        timeline,
        run.orders(),
        run.steering(),
        null,
        (System.nanoTime() - start) / 1_000_000);
  }
}
