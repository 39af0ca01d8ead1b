package io.llmgw.cli;

import io.llmgw.loadgen.ServeTraining;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * Runs the short commands once, their output discarded, so that the class archive the launcher records from this run
 * holds what they load: a JVM maps archived classes instead of reading and verifying them, which is most of what a
 * short command spends. {@code status} reads a port nothing listens on, on loopback; {@code validate} reads the
 * shipped examples. With {@code --serve} (the launcher passes it on JDK 25 and later, whose AOT cache keeps the
 * methods' execution profiles) it then routes chat through two EPP replicas with each shipped policy
 * ({@link ServeTraining}), so that {@code serve} compiles its request path from its first requests. Only the launcher
 * runs it, right after a build.
 */
public final class ClassArchiveTraining {
  private ClassArchiveTraining() {}

  public static void main(String[] args) {
    Path examples = Path.of(args.length > 0 ? args[0] : "examples");
    boolean serve = args.length > 1 && args[1].equals("--serve");
    run("--help");
    run("status", "--epp", "127.0.0.1:1", "--batch", "127.0.0.1:1");
    for (String file : new String[] {"pool.yaml", "quickstart.yaml", "plugins-scorers.yaml"}) {
      if (Files.isRegularFile(examples.resolve(file))) {
        run("validate", examples.resolve(file).toString());
      }
    }
    run("validate", examples.resolve("no-such-file.yaml").toString());
    if (serve) {
      QuietLogs.apply();
      ServeTraining.run();
    }
  }

  private static void run(String... args) {
    CommandLine cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(new StringWriter()));
    cl.execute(args);
  }
}
