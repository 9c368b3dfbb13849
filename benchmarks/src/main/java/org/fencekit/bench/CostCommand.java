package org.fencekit.bench;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of a cost probe ({@link PostgresCost}, {@link MysqlCost}, {@link RedisCost},
 * {@link EtcdCost}; {@link EmbeddedCost}, which has no server and so no {@code --url}): the
 * server's URL, the orders per turn and the runs; prints the probe's table. Exit codes: 0 measured,
 * 2 the server could not be used or a turn failed, 64 a wrong command line.
 */
@Command(
    sortOptions = false,
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = Main.USAGE,
    exitCodeOnExecutionException = Main.UNAVAILABLE)
final class CostCommand implements Callable<Integer> {

  /** What a probe measures, given the options. */
  interface Probe {
    CostProbe.Result measure(String url, int orders, int runs);
  }

  @Option(
      names = "--url",
      required = true,
      paramLabel = "URL",
      description =
          "the server: a JDBC URL, redis://host:port, or etcd's http://host:port (a server no one"
              + " else uses, for the CPU and log figures)")
  String url;

  @Option(
      names = "--orders",
      defaultValue = "2000",
      description = "fresh orders per subject and run (default: ${DEFAULT-VALUE})")
  int orders;

  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "measured runs, after one to warm up (default: ${DEFAULT-VALUE})")
  int runs;

  private final Probe probe;
  private final PrintStream out;

  private CostCommand(Probe probe, PrintStream out) {
    this.probe = probe;
    this.out = out;
  }

  /**
   * Runs {@code probe} as the command {@code name} with {@code args}, its table and errors to
   * {@code out}; returns the exit code.
   */
  static int run(String name, String description, Probe probe, String[] args, PrintStream out) {
    return run(name, description, probe, true, args, out);
  }

  /** {@link #run} for a probe of embedded stores: the same command without {@code --url}. */
  static int runEmbedded(
      String name, String description, EmbeddedProbe probe, String[] args, PrintStream out) {
    return run(
        name, description, (url, orders, runs) -> probe.measure(orders, runs), false, args, out);
  }

  /** What a probe of embedded stores measures, given the options. */
  interface EmbeddedProbe {
    CostProbe.Result measure(int orders, int runs);
  }

  private static int run(
      String name,
      String description,
      Probe probe,
      boolean server,
      String[] args,
      PrintStream out) {
    CommandLine line = new CommandLine(new CostCommand(probe, out)).setCommandName(name);
    if (!server) {
      line.getCommandSpec().remove(line.getCommandSpec().findOption("--url"));
    }
    line.getCommandSpec().usageMessage().description(description);
    line.setErr(new PrintWriter(out, true));
    line.setExecutionExceptionHandler(
        (e, failed, parsed) -> {
          failed.getErr().println(name + ": " + e.getMessage());
          return Main.UNAVAILABLE;
        });
    return line.execute(args);
  }

  @Override
  public Integer call() {
    if (orders < 1 || runs < 1) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "--orders and --runs must be at least 1, got --orders " + orders + " --runs " + runs);
    }
    out.print(probe.measure(url, orders, runs).format());
    return Main.OK;
  }
}
