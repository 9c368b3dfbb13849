package org.fencekit.server;

import com.stripe.StripeClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.fencekit.fulfilment.Provider;
import org.fencekit.store.OrderStore;
import org.fencekit.store.spec.DurationText;
import org.fencekit.store.spec.StoreSpec;
import org.fencekit.webhook.HealthProbe;
import org.fencekit.webhook.MetadataMapping;
import org.fencekit.webhook.SessionMapping;
import org.fencekit.webhook.SettingNames;
import org.fencekit.webhook.StripeSignature;
import org.fencekit.webhook.SuccessPage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar fencekit-webhook-server.jar}: the webhook server, configured from the
 * environment.
 */
@Command(
    name = "fencekit-webhook-server",
    mixinStandardHelpOptions = true,
    version = "fencekit-webhook-server 0.1.0-SNAPSHOT",
    sortOptions = false,
    description = {
      "Fulfils Stripe Checkout sessions exactly once: POST /webhook (signature checked),"
          + " GET /checkout/success (with STRIPE_API_KEY), GET /health, GET /metrics"
          + " (Prometheus).",
      "Every option has an environment variable; the option wins when both are set."
    },
    footerHeading = "%nEnvironment:%n",
    footer = {
      "  STRIPE_WEBHOOK_SECRET      required: the endpoint's signing secret (whsec_...);",
      "                             several, comma-separated, while rotating; never an option",
      "  FENCEKIT_STORE             --store    (default sqlite:fencekit-orders.db)",
      "  FENCEKIT_PORT              --port     (default 8080)",
      "  FENCEKIT_HOST              --host     (default 0.0.0.0)",
      "  FENCEKIT_LEASE             --lease    (default 2m)",
      "  FENCEKIT_PROVIDER          --provider (default: a demo provider of fake eSIM codes)",
      "  FENCEKIT_PROVIDER_URL      --provider-url (buy over HTTP; not with --provider)",
      "  FENCEKIT_PROVIDER_TIMEOUT  --provider-timeout (default 30s)",
      "  FENCEKIT_MAPPING           --mapping  (default: metadata product_id and quantity)",
      "  STRIPE_API_KEY             serves GET /checkout/success?session_id=... (sk_... or",
      "                             rk_...; never an option)",
      "  FENCEKIT_STRIPE_API_BASE   --stripe-api-base (default https://api.stripe.com)",
      "",
      "Exit codes: 1 could not start (port taken, host not bindable, store not answering or not",
      "writable), 2 bad configuration (a bad value, a provider that cannot be built).",
      "SIGTERM or SIGINT drains deliveries in flight, then stops (the JVM exits 143 or 130).",
      "",
      "Try it: stripe listen --forward-to localhost:8080/webhook"
    })
public final class ServerMain implements Callable<Integer> {

  /** Exit code for a configuration the server refuses. */
  static final int BAD_CONFIGURATION = 2;

  /** Exit code for a server that could not start. */
  static final int CANNOT_START = 1;

  @Option(
      names = "--store",
      paramLabel = "SPEC",
      defaultValue = "${env:FENCEKIT_STORE:-sqlite:fencekit-orders.db}",
      description =
          "sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U, jdbc:mysql://HOST:PORT/DB?user=U,"
              + " redis://HOST:PORT or"
              + " redis-cluster:HOST:PORT,... (default: ${DEFAULT-VALUE})")
  String store;

  @Option(
      names = "--port",
      defaultValue = "${env:FENCEKIT_PORT:-8080}",
      description = "port to listen on (default: ${DEFAULT-VALUE})")
  String port;

  @Option(
      names = "--host",
      defaultValue = "${env:FENCEKIT_HOST:-0.0.0.0}",
      description = "address to listen on (default: ${DEFAULT-VALUE})")
  String host;

  @Option(
      names = "--lease",
      defaultValue = "${env:FENCEKIT_LEASE:-2m}",
      description = "how long a claim holds off other attempts: 90s, 2m, PT2M (default: 2m)")
  String lease;

  @Option(
      names = "--provider",
      paramLabel = "CLASS",
      defaultValue = "${env:FENCEKIT_PROVIDER:-}",
      description =
          "a class on the classpath implementing org.fencekit.fulfilment.Provider, with a public"
              + " no-argument constructor (default: the demo provider)")
  String provider;

  @Option(
      names = "--provider-url",
      paramLabel = "URL",
      defaultValue = "${env:FENCEKIT_PROVIDER_URL:-}",
      description =
          "buy over HTTP from the provider at this base URL: POST URL/purchases with the order's"
              + " Idempotency-Key (webhook-server/README.md, \"Buy over HTTP\"); not with"
              + " --provider")
  String providerUrl;

  @Option(
      names = "--provider-timeout",
      paramLabel = "DURATION",
      defaultValue = "${env:FENCEKIT_PROVIDER_TIMEOUT:-30s}",
      description =
          "the longest one provider call may take, connecting included; then its outcome is"
              + " unknown and the order is failed for Stripe's retry: 10s, 2m (default: 30s)")
  String providerTimeout;

  @Option(
      names = "--mapping",
      paramLabel = "CLASS",
      defaultValue = "${env:FENCEKIT_MAPPING:-}",
      description =
          "a class implementing org.fencekit.webhook.SessionMapping (default: metadata product_id"
              + " and quantity)")
  String mapping;

  @Option(
      names = "--stripe-api-base",
      paramLabel = "URL",
      defaultValue = "${env:FENCEKIT_STRIPE_API_BASE:-https://api.stripe.com}",
      description =
          "where the success page reads Checkout sessions (default: ${DEFAULT-VALUE}); only with"
              + " STRIPE_API_KEY")
  String stripeApiBase;

  private final CountDownLatch stopped = new CountDownLatch(1);

  /** Runs the server until it is stopped; exits with the code the footer lists. */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine line = new CommandLine(new ServerMain());
    line.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          cmd.getErr().println("fencekit-webhook-server: " + e.getMessage());
          return e instanceof IllegalArgumentException ? BAD_CONFIGURATION : CANNOT_START;
        });
    return line;
  }

  @Override
  public Integer call() {
    // the secrets first: without one the server refuses to start, before anything is opened
    List<String> secrets =
        StripeSignature.secrets(
            SettingNames.SERVER.secret(), splitSecrets(System.getenv("STRIPE_WEBHOOK_SECRET")));
    StoreSpec spec = StoreSpec.parse("FENCEKIT_STORE (or --store)", store);
    int listenPort = port("FENCEKIT_PORT (or --port)", port);
    Duration leaseDuration = DurationText.parse("FENCEKIT_LEASE (or --lease)", lease);
    Duration callTimeout = providerTimeout("FENCEKIT_PROVIDER_TIMEOUT (or --provider-timeout)");
    Provider buyer = provider(callTimeout);
    SessionMapping sessions =
        mapping.isBlank()
            ? new MetadataMapping()
            : instance("FENCEKIT_MAPPING (or --mapping)", mapping, SessionMapping.class);
    listenHost("FENCEKIT_HOST (or --host)", host);
    Clock clock = Clock.systemUTC();
    OrderStore orders;
    try {
      orders = spec.open(clock);
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot open the store " + spec + ": " + spec.redact(e.getMessage()), e);
    }
    // A Redis store connects lazily: ask every backend for a write now, so one that does not
    // answer stops the start-up instead of failing the first delivery.
    HealthProbe.Result probe;
    try (HealthProbe health = new HealthProbe(orders, Duration.ofSeconds(30))) {
      probe = health.probe();
    }
    if (!probe.ok()) {
      orders.close();
      throw new IllegalStateException(
          ("the store %s does not answer or cannot be written (%s): start it, or set"
                  + " FENCEKIT_STORE to one that answers")
              .formatted(spec, spec.redact(probe.json())));
    }
    WebhookServer.Builder builder =
        WebhookServer.builder(orders, buyer)
            .host(host)
            .port(listenPort)
            .clock(clock)
            .mapping(sessions)
            .handler(handler -> handler.lease(leaseDuration).providerTimeout(callTimeout));
    secrets.forEach(builder::secret);
    String apiKey = System.getenv("STRIPE_API_KEY");
    if (apiKey != null && !apiKey.isBlank()) {
      builder.successPage(stripeClient(apiKey.trim(), stripeApiBase));
    }
    WebhookServer server;
    try {
      server = builder.build().start();
    } catch (RuntimeException e) {
      orders.close();
      throw e;
    }
    System.out.println(
        "fencekit webhook server on http://%s:%s/webhook (store %s, provider %s, lease %s)"
            .formatted(host, server.port(), spec, buyer, leaseDuration));
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  orders.close();
                  stopped.countDown();
                },
                "fencekit-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** STRIPE_WEBHOOK_SECRET's comma-separated secrets; none if it is unset. */
  private static List<String> splitSecrets(String variable) {
    return variable == null ? List.of() : Arrays.asList(variable.split(","));
  }

  /** The client the success page reads sessions with; the key is checked, never printed. */
  static StripeClient stripeClient(String apiKey, String apiBase) {
    return SuccessPage.client(
        "STRIPE_API_KEY", apiKey, "FENCEKIT_STRIPE_API_BASE (or --stripe-api-base)", apiBase);
  }

  private Duration providerTimeout(String variable) {
    Duration timeout = DurationText.parse(variable, providerTimeout);
    if (timeout.isZero() || timeout.compareTo(OrderStore.MAX_LEASE) > 0) {
      throw new IllegalArgumentException(
          "%s must be more than 0 and at most 24h, got '%s' (e.g. 30s)"
              .formatted(variable, providerTimeout));
    }
    return timeout;
  }

  /** The provider: over HTTP, a class, or the demo; never two at once. */
  private Provider provider(Duration timeout) {
    String urlVariable = "FENCEKIT_PROVIDER_URL (or --provider-url)";
    String classVariable = "FENCEKIT_PROVIDER (or --provider)";
    if (!providerUrl.isBlank() && !provider.isBlank()) {
      throw new IllegalArgumentException(
          ("%s and %s are both set, and the server buys from one provider: unset %s to buy over"
                  + " HTTP, or %s to buy with the class")
              .formatted(classVariable, urlVariable, classVariable, urlVariable));
    }
    if (!providerUrl.isBlank()) {
      return new HttpProvider(urlVariable, providerUrl, timeout);
    }
    return provider.isBlank()
        ? new DemoProvider()
        : instance(classVariable, provider, Provider.class);
  }

  static int port(String variable, String text) {
    try {
      int value = Integer.parseInt(text.trim());
      if (value >= 0 && value <= 65_535) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        variable + " must be a port number 0 to 65535, got '" + text + "' (e.g. 8080)");
  }

  /** Checks the host resolves, so a typo is named as such rather than as a port taken. */
  static void listenHost(String variable, String text) {
    try {
      java.net.InetAddress.getByName(text.trim());
    } catch (java.net.UnknownHostException | SecurityException e) {
      throw new IllegalArgumentException(
          ("%s is '%s', which does not resolve to an address: give one of this machine's addresses"
                  + " (0.0.0.0 for all, 127.0.0.1 for this machine only)")
              .formatted(variable, text));
    }
  }

  static <T> T instance(String variable, String className, Class<T> type) {
    String named = variable + " names " + className + ", ";
    try {
      Class<?> found = Class.forName(className.trim());
      if (!type.isAssignableFrom(found)) {
        throw new IllegalArgumentException(named + "which does not implement " + type.getName());
      }
      return type.cast(found.getDeclaredConstructor().newInstance());
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(
          named
              + "which is not on the classpath: run with -cp"
              + " fencekit-webhook-server.jar:your.jar org.fencekit.server.ServerMain");
    } catch (java.lang.reflect.InvocationTargetException e) {
      Throwable cause = e.getCause();
      throw new IllegalArgumentException(
          named
              + "whose constructor threw "
              + cause.getClass().getSimpleName()
              + ": "
              + cause.getMessage()
              + " (fix what it needs, e.g. its own configuration, and start again)",
          cause);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          named + "which has no public no-argument constructor (" + e + ")");
    }
  }
}
