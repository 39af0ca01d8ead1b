package io.llmgw.cli;

import io.llmgw.batch.BatchCommand;
import io.llmgw.devproxy.ProxyCommand;
import io.llmgw.loadgen.BenchCommand;
import io.llmgw.sim.SimCommand;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/** {@code llmgw}: the gateway's command line. */
@Command(name = "llmgw", mixinStandardHelpOptions = true, version = "llmgw 0.1.0",
    description = "LLM Instance Gateway: an Envoy ext_proc Endpoint Picker for pools of LLM model servers.")
public final class Main implements Runnable {
  /** Netty's buffer-leak sampling, read once when Netty loads; an operator may still set it on the command line. */
  static final String NETTY_LEAK_DETECTION = "io.grpc.netty.shaded.io.netty.leakDetection.level";

  /** Every subcommand, in the order {@code --help} lists them. */
  static final List<Class<?>> SUBCOMMANDS = List.of(QuickstartCommand.class, ServeCommand.class, SimCommand.class,
      ProxyCommand.class, BenchCommand.class, StatusCommand.class, ValidateCommand.class, BatchCommand.class);

  public static void main(String[] args) {
    // Netty records a stack trace for one buffer in 128 to find leaks in its own callers: a debugging aid that cost
    // about 1 % of the EPP's CPU per exchange (bench/README.md), for buffers only gRPC itself handles
    if (System.getProperty(NETTY_LEAK_DETECTION) == null) {
      System.setProperty(NETTY_LEAK_DETECTION, "disabled");
    }
    if (args.length > 0 && (args[0].equals("quickstart") || args[0].equals("bench"))) {
      QuietLogs.apply(); // their output is tables; the servers' INFO lines would bury them
    }
    System.exit(commandLine(args).execute(args));
  }

  /**
   * The command line for these arguments, with a wrong flag answered in one line (and where to read more), not the
   * whole usage. Only the subcommand the arguments name is built in full: building all of them (their options read
   * by reflection, their objects made) was most of what {@code --help} and {@code status} spent in a 0.6 s start. The
   * others are their names and descriptions, enough for the usage and for "did you mean".
   */
  static CommandLine commandLine(String... args) {
    String named = args.length > 0 ? args[0] : "";
    CommandLine root = new CommandLine(new Main());
    for (Class<?> type : SUBCOMMANDS) {
      Command declared = type.getAnnotation(Command.class);
      if (declared.name().equals(named)) {
        root.addSubcommand(new CommandLine(type));
      } else {
        CommandSpec summary = CommandSpec.create().name(declared.name());
        summary.usageMessage().description(declared.description());
        root.addSubcommand(summary.name(), new CommandLine(summary));
      }
    }
    return root.setCaseInsensitiveEnumValuesAllowed(true).setParameterExceptionHandler(Main::badParameter);
  }

  private static int badParameter(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    String name = cmd.getCommandSpec().qualifiedName();
    String hint = "";
    if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
      hint = "; did you mean " + String.join(" or ", u.getSuggestions().subList(0,
          Math.min(3, u.getSuggestions().size()))) + "?";
    }
    cmd.getErr().println(name + ": " + e.getMessage() + hint + " (see " + name + " --help)");
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  @CommandLine.Spec
  private CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
