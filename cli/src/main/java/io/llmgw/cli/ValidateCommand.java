package io.llmgw.cli;

import io.llmgw.adapters.AdapterRuntime;
import io.llmgw.api.ConfigChanges;
import io.llmgw.api.ConfigException;
import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.GatewayConfig;
import io.llmgw.extproc.Components;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.config.ParameterException;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.scraper.ScrapeListener;
import io.llmgw.scraper.ScrapeState;
import io.llmgw.scraper.ScrapeStates;
import io.llmgw.scraper.ScrapeTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code llmgw validate FILE...}: the checks the EPP runs on a file, before it ships. A gateway file (pools, routes,
 * objectives, pods) is read by the loader {@code serve} uses; a plugin file ({@code kind: EndpointPickerConfig}) is
 * assembled into the whole lifecycle as {@code serve --plugins-config} does, over parts that start nothing.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Check configuration files as the EPP reads them, without starting anything: a gateway file (what "
        + "serve --config and quickstart read) or a plugin file (kind: EndpointPickerConfig, serve --plugins-config). "
        + "Exit 0 when every file is valid; 1 with each problem (file, document, field, line and column).")
public final class ValidateCommand implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", arity = "1..*", description = "Files to check.")
  List<Path> files;

  @Option(names = "--against", paramLabel = "FILE",
      description = "A gateway file running now: also say what the checked file would change (routes added, removed, "
          + "changed; pools, objectives and pods alike).")
  Path against;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    int bad = 0;
    for (Path file : files) {
      try {
        out.println(file + ": " + check(file));
      } catch (ConfigException e) {
        err.println("llmgw validate: " + e.getMessage());
        bad++;
      } catch (IllegalArgumentException e) {
        err.println("llmgw validate: " + placed(file, e));
        bad++;
      }
    }
    out.flush();
    err.flush();
    return bad == 0 ? 0 : 1;
  }

  private String check(Path file) throws ConfigException {
    if (isPluginFile(file)) {
      List<String> warnings = new ArrayList<>();
      SchedulingConfig config = PluginConfigFile.load(file, warnings::add);
      String lifecycle = assemble(config);
      return "valid EndpointPickerConfig; lifecycle " + lifecycle
          + (warnings.isEmpty() ? "" : "; " + String.join("; ", warnings));
    }
    GatewayConfig config = ConfigFileLoader.load(file);
    String counts = config.pools().size() + " pools, " + config.routes().size() + " routes, "
        + config.objectives().size() + " objectives, " + config.pods().size() + " pods";
    if (against == null) {
      return "valid (" + counts + ")";
    }
    return "valid (" + counts + "); against " + against + ": "
        + ConfigChanges.between(ConfigFileLoader.load(against), config).describe();
  }

  /** A plugin's refusal with the line and column of the parameter it refused, when it is one. */
  private static String placed(Path file, IllegalArgumentException e) {
    String prefix = file + ": ";
    if (e.getCause() instanceof ParameterException refused && e.getMessage().startsWith(prefix)) {
      return file + PluginConfigFile.where(readable(file), refused) + ": " + e.getMessage().substring(prefix.length());
    }
    return e.getMessage();
  }

  private static String readable(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }

  /** A file that cannot be read is not one: the gateway file's loader then says why. */
  private static boolean isPluginFile(Path file) {
    return readable(file).lines().anyMatch(l -> l.strip().equals("kind: EndpointPickerConfig"));
  }

  /** The lifecycle the plugin file makes, assembled as serve assembles it; throws naming the plugin. */
  private static String assemble(SchedulingConfig config) {
    ScheduledExecutorService idle = Executors.newSingleThreadScheduledExecutor();
    try {
      Components parts = Components.wire(EppSettings.defaults(Path.of("validate")).withScheduling(config),
          Clock.systemUTC(), Ticker.system(), idle, Runnable::run, NO_SCRAPES, new EppMetrics(), NO_RUNTIME);
      return parts.streams().director().describe();
    } finally {
      idle.shutdownNow();
    }
  }

  private static final ScrapeStates NO_SCRAPES = new ScrapeStates() {
    @Override
    public void setTargets(Collection<ScrapeTarget> targets) {}

    @Override
    public ScrapeState state(String address) {
      return ScrapeState.INITIAL;
    }

    @Override
    public void addListener(ScrapeListener listener) {}
  };

  private static final AdapterRuntime NO_RUNTIME = new AdapterRuntime() {
    @Override
    public CompletableFuture<Void> load(String address, String adapter, String source) {
      return CompletableFuture.failedFuture(new IllegalStateException("validate loads nothing"));
    }

    @Override
    public CompletableFuture<Void> unload(String address, String adapter) {
      return CompletableFuture.failedFuture(new IllegalStateException("validate unloads nothing"));
    }
  };
}
