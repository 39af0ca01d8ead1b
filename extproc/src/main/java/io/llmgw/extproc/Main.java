package io.llmgw.extproc;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code llmgw}: the gateway's command line. */
@Command(name = "llmgw", mixinStandardHelpOptions = true, version = "llmgw 0.1.0",
    description = "LLM Instance Gateway: an Envoy ext_proc Endpoint Picker for pools of LLM model servers.",
    subcommands = {ServeCommand.class})
public final class Main implements Runnable {
  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
