package io.llmgw.cli;

import io.llmgw.adapters.AdapterRuntime;
import io.llmgw.api.ConfigChanges;
import io.llmgw.api.ConfigException;
import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.GatewayConfig;
import io.llmgw.api.keys.ApiKeys;
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
import java.util.TreeSet;
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
        + "serve --config and quickstart read), a plugin file (kind: EndpointPickerConfig, serve --plugins-config) or "
        + "an API keys file (--api-keys-file); several together as one deployment. Exit 0 when every file is valid "
        + "and they fit together; 1 with each problem (file, document, field, line and column).")
public final class ValidateCommand implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", arity = "1..*", description = "Files to check.")
  List<Path> files;

  @Option(names = "--batch-objective", paramLabel = "NAME",
      description = "The deployment runs the batch service naming this InferenceObjective (llmgw batch --objective, "
          + "usually batch): check every pool defines it below priority 0, and that a keys file given has a key "
          + "acting for others.")
  String batchObjective;

  @Option(names = "--against", paramLabel = "FILE",
      description = "A gateway file running now: also say what the checked file would change (routes added, removed, "
          + "changed; pools, objectives and pods alike).")
  Path against;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  private final List<GatewayConfig> gateways = new ArrayList<>();
  private final List<ApiKeys> keyFiles = new ArrayList<>();

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
    if (bad == 0 && (!keyFiles.isEmpty() || batchObjective != null)) {
      List<String> problems = DeploymentChecks.problems(gateways, keyFiles, batchObjective);
      problems.forEach(p -> err.println("llmgw validate: the files together: " + p));
      DeploymentChecks.notes(gateways, keyFiles).forEach(n -> out.println("note: " + n));
      if (problems.isEmpty()) {
        out.println("together: " + (batchObjective == null ? "consistent"
            : "consistent, the batch objective '" + batchObjective + "' sheddable on every pool"));
      }
      bad += problems.size();
    }
    out.flush();
    err.flush();
    return bad == 0 ? 0 : 1;
  }

  private String check(Path file) throws ConfigException {
    if (isKeysFile(file)) {
      return checkKeys(file);
    }
    if (isPluginFile(file)) {
      List<String> warnings = new ArrayList<>();
      SchedulingConfig config = PluginConfigFile.load(file, warnings::add);
      String lifecycle = assemble(config);
      return "valid EndpointPickerConfig; lifecycle " + lifecycle
          + (warnings.isEmpty() ? "" : "; " + String.join("; ", warnings));
    }
    GatewayConfig config = ConfigFileLoader.load(file);
    gateways.add(config);
    String counts = config.pools().size() + " pools, " + config.routes().size() + " routes, "
        + config.objectives().size() + " objectives, " + config.pods().size() + " pods";
    if (against == null) {
      return "valid (" + counts + ")";
    }
    return "valid (" + counts + "); against " + against + ": "
        + ConfigChanges.between(ConfigFileLoader.load(against), config).describe();
  }

  /** An API keys file (--api-keys-file) as the EPP and the batch service read it: every entry must be well-formed. */
  private String checkKeys(Path file) {
    ApiKeys.Reading r;
    try {
      r = ApiKeys.read(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": not a keys file: " + e.getMessage(), e);
    }
    if (!r.refused().isEmpty()) {
      throw new IllegalArgumentException(file + ": " + r.refused().size() + " entr" + (r.refused().size() == 1 ? "y"
          : "ies") + " would be left out: " + String.join("; ", r.refused()));
    }
    keyFiles.add(r.keys());
    return "valid keys file (" + r.keys().size() + " keys for tenants " + new TreeSet<>(r.keys().tenants())
        + (r.keys().anyActsForOthers() ? "; one acts for others" : "") + ")";
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

  private static boolean isKeysFile(Path file) {
    return readable(file).lines().anyMatch(l -> l.startsWith("keys:"));
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
