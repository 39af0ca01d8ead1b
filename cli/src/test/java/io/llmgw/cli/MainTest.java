package io.llmgw.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Issue 32, item 4: the command line builds only the subcommand it runs, and still lists and suggests them all. */
class MainTest {
  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void theUsageListsEverySubcommandWithItsDescription() {
    for (String[] args : new String[][] {{}, {"--help"}}) {
      Run run = run(args);
      assertThat(run.code()).isZero();
      for (Class<?> type : Main.SUBCOMMANDS) {
        Command declared = type.getAnnotation(Command.class);
        assertThat(run.out()).contains(declared.name(), declared.description()[0].substring(0, 20));
      }
    }
  }

  @Test
  void onlyTheNamedSubcommandIsBuiltInFull() {
    CommandLine cl = Main.commandLine("status", "--epp", "127.0.0.1:1");
    assertThat(cl.getSubcommands().get("status").getCommandSpec().userObject()).isInstanceOf(StatusCommand.class);
    assertThat(cl.getSubcommands().get("serve").getCommandSpec().userObject()).isNull();
    assertThat(cl.getSubcommands().get("serve").getCommandSpec().options()).isEmpty();
  }

  @Test
  void aSubcommandsOwnHelpListsItsOptions() {
    Run run = run("validate", "--help");
    assertThat(run.code()).isZero();
    assertThat(run.out()).contains("Usage: llmgw validate", "--against");
  }

  @Test
  void aMistypedSubcommandIsAnsweredWithTheOneItMeant() {
    Run run = run("stauts");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("stauts", "did you mean status").hasLineCount(1);
  }
}
