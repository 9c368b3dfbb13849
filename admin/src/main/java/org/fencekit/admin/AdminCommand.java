package org.fencekit.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.spec.StoreSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar fencekit-admin.jar}: the operator's command line over any fencekit store. Each
 * subcommand opens the store named by {@code --store} (or {@code FENCEKIT_STORE}), does one thing,
 * prints a table (or JSON with {@code --json}) and exits with one of {@link ExitCode}'s codes.
 */
@Command(
    name = "fencekit-admin",
    mixinStandardHelpOptions = true,
    versionProvider = AdminCommand.Version.class,
    description = {
      "Operates a fencekit order store: finds and reconciles orphaned purchases, lists stuck and"
          + " failed orders and claims that offered another order under a session id, checks and"
          + " upgrades the schema."
    },
    subcommands = {OrdersCommand.class, OrphansCommand.class, SchemaCommand.class},
    footerHeading = "%n",
    footer = {
      "Every subcommand takes, before or after its name: --store SPEC (default:",
      "$FENCEKIT_STORE), --json, and --key-prefix PREFIX for Redis (or etcd) keys not",
      "under fencekit: ($FENCEKIT_REDIS_KEY_PREFIX; an etcd:// URL's /PREFIX wins).",
      "Only `schema migrate` creates or upgrades tables; nothing prints a password.",
      "",
      "Exit codes:",
      "  0   done; a listing found nothing",
      "  1   found something to look at (a listing not empty, a schema not current),",
      "      or not found (no such order or orphan, reconciled before with another",
      "      note)",
      "  2   the store could not be used: it did not answer, refused to open, or lacks",
      "      the operator's queries",
      "  64  the command line is wrong: an unknown option, a malformed --store or value"
    })
public final class AdminCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The store and output options, inherited by every subcommand ({@link StoreOptions}). */
  @CommandLine.Mixin StoreOptions options = new StoreOptions();

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, with fencekit's exit codes and error messages. */
  static CommandLine commandLine() {
    CommandLine line = new CommandLine(new AdminCommand());
    line.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine command = e.getCommandLine();
          PrintWriter err = command.getErr();
          err.println("fencekit-admin: " + StoreSpec.redacted(e.getMessage()));
          err.println("Try `" + command.getCommandSpec().qualifiedName(" ") + " --help`.");
          err.flush();
          return ExitCode.USAGE;
        });
    line.setExecutionExceptionHandler(AdminCommand::failed);
    return line;
  }

  /** Without a subcommand: the usage, as a usage error. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "name a subcommand: orders, orphans or schema");
  }

  private static int failed(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    PrintWriter err = command.getErr();
    StoreOptions options = ((AdminCommand) command.getCommandSpec().root().userObject()).options;
    String message =
        options == null ? String.valueOf(e.getMessage()) : options.redact(e.getMessage());
    int code;
    if (e instanceof Problem problem) {
      code = problem.exitCode();
    } else if (e instanceof UnknownOrderException) {
      code = ExitCode.FOUND;
    } else if (e instanceof IllegalArgumentException || e instanceof NullPointerException) {
      code = ExitCode.USAGE;
    } else if (e instanceof StoreUnavailableException || e instanceof IllegalStateException) {
      code = ExitCode.UNAVAILABLE;
    } else {
      code = ExitCode.UNAVAILABLE;
      message = e.getClass().getName() + ": " + message;
    }
    err.println(
        command.getCommandName().equals("fencekit-admin")
            ? "fencekit-admin: " + message
            : "fencekit-admin " + qualifiedName(command) + ": " + message);
    if (code == ExitCode.USAGE) {
      err.println("Try `fencekit-admin " + qualifiedName(command) + " --help`.");
    }
    err.flush();
    return code;
  }

  private static String qualifiedName(CommandLine command) {
    String name = command.getCommandSpec().qualifiedName(" ");
    return name.startsWith("fencekit-admin ") ? name.substring("fencekit-admin ".length()) : name;
  }

  /** The version of the parent pom, carried by a filtered resource. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in = AdminCommand.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {"fencekit-admin " + properties.getProperty("version", "unknown")};
    }
  }
}
