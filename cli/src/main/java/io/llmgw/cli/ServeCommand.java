package io.llmgw.cli;

import io.llmgw.adapters.CopySettings;
import io.llmgw.api.ConfigException;
import io.llmgw.envoy.xds.XdsServer;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.capacity.options.CapacityOptions;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.flow.options.FlowOptions;
import io.llmgw.extproc.pluginfile.FileSettings;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.extproc.plugins.DefaultPlugins;
import io.llmgw.extproc.tenancy.options.TenancyOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Wires the serve flags, one mixin per concern, into the EPP's settings, and runs the EPP until it is stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true, defaultValueProvider = SettingsDefaults.class,
    description = "Run the Endpoint Picker over the pools, routes and pods of a YAML file (file mode) or of a "
        + "Kubernetes namespace (--kubernetes).")
public final class ServeCommand implements Callable<Integer> {
  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  static final class Source {
    @Option(names = "--config",
        description = "File mode: multi-document YAML with InferencePool, LLMRoute, InferenceObjective and Pod "
            + "objects; watched for edits.")
    Path config;

    @Option(names = "--kubernetes",
        description = "Cluster mode: watch the namespace's objects through the Kubernetes API (in-cluster service "
            + "account, or the current kubeconfig context).")
    boolean kubernetes;

    @Option(names = "--print-default-plugins",
        description = "Print the default plugin configuration (every extension point's plugins, the seed policy; an "
            + "EndpointPickerConfig for --plugins-config to start from) and exit.")
    boolean printDefaultPlugins;
  }

  @Mixin
  ClusterOptions cluster = new ClusterOptions();

  @Mixin
  ListenOptions listen = new ListenOptions();

  @Mixin
  TlsOptions tls = new TlsOptions();

  @Mixin
  SchedulingOptions scheduling = new SchedulingOptions();

  @Mixin
  PodOptions pods = new PodOptions();

  @Mixin
  RequestOptions requests = new RequestOptions();

  @Mixin
  XdsOptions xds = new XdsOptions();

  @Mixin
  FlowOptions flowOptions = new FlowOptions();

  @Mixin
  KvEventOptions kvEventOptions = new KvEventOptions();

  @Mixin
  CapacityOptions capacityOptions = new CapacityOptions();

  @Mixin
  PeerOptions peerOptions = new PeerOptions();

  @Mixin
  WireOptions wireOptions = new WireOptions();

  @Mixin
  TenancyOptions tenancyOptions = new TenancyOptions();

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (source.printDefaultPlugins) {
      System.out.print(DefaultPlugins.text());
      return 0;
    }
    EppSettings settings;
    try {
      settings = settings();
    } catch (IllegalArgumentException e) {
      System.err.println("llmgw: " + ServeFlags.FLAGS.explain(e));
      return 2;
    } catch (ConfigException e) {
      System.err.println("llmgw: cannot read the plugin configuration: " + e.getMessage());
      return 2;
    }
    if (source.kubernetes) {
      Map<String, String> props = new HashMap<>();
      System.getProperties().forEach((k, v) -> props.put(k.toString(), v.toString()));
      String missing = KubeAccess.problem(System.getenv(), props, Path.of(System.getProperty("user.home")));
      if (missing != null) {
        System.err.println("llmgw: " + missing);
        return 2;
      }
    }
    Epp epp;
    try {
      epp = Epp.start(settings, Clock.systemUTC());
    } catch (ConfigException | IllegalArgumentException e) {
      System.err
          .println("llmgw: cannot start: " + (e instanceof IllegalArgumentException i ? ServeFlags.FLAGS.explain(i)
              : e.getMessage()));
      return 2;
    }
    XdsServer xdsServer;
    try {
      xdsServer = xds.on() ? xds.start(epp, listen.bind) : null;
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("llmgw: cannot serve xDS on port " + xds.port() + ": "
          + (e instanceof IllegalArgumentException i ? ServeFlags.FLAGS.explain(i) : e.getMessage()));
      epp.close();
      return 2;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      epp.drainAndClose();
      if (xdsServer != null) {
        xdsServer.close();
      }
    }, "epp-shutdown"));
    epp.awaitTermination();
    return 0;
  }

  /** The flags over the settings' defaults; the scheduling from --plugins-config, else from --policy. */
  public EppSettings settings() throws ConfigException {
    if (peerOptions.service != null && !source.kubernetes) {
      throw new IllegalArgumentException("--peers-service finds the peers in a cluster (--kubernetes); list them with "
          + "--peers in file mode");
    }
    PluginConfigFile.Loaded file = scheduling.file();
    EppSettings d = EppSettings.defaults(sourceSettings());
    FileSettings fromFile = file != null ? file.settings() : FileSettings.NONE;
    Duration interval = fromFile.scrapeInterval() != null && !spec.commandLine().getParseResult()
        .hasMatchedOption("--scrape-interval") ? fromFile.scrapeInterval() : pods.scrapeInterval;
    CopySettings c = d.copies();
    return d.withListen(listen.listen(d.listen(), source.kubernetes, tls.serverTls(source.kubernetes), tls.metricsTls)
        .withPeers(peerOptions.peers).withPeerService(peerOptions.service).withPeerKey(peerOptions.key())
        .withPeerWarmTimeout(peerOptions.warmTimeout))
        .withScheduling(scheduling.scheduling(file))
        .withRequests(requests.requests(d.requests(), wireOptions.hooks()))
        .withScrape(d.scrape().withInterval(interval).withKvEvents(kvEventOptions.settings(d.scrape().kvEvents(),
            fromFile)).withAdapterWarmWindow(pods.adapterWarmWindow), pods.staleAfter)
        .withAdapters(pods.adapters(d.adapters()))
        // a copy busier than the seed policy's threshold on two ticks running earns another
        .withCopies(new CopySettings(c.minCopies(), c.recentWindow(), c.recentUses(), scheduling.threshold(),
            c.tick()))
        .withFlow(flowOptions.flow(), flowOptions.saturation())
        .withTenancy(tenancyOptions.tenancy())
        .withCapacity(capacityOptions.capacity(d.capacity()));
  }

  private SourceSettings sourceSettings() {
    return source.kubernetes ? cluster.cluster() : new SourceSettings.File(source.config, Duration.ofSeconds(1));
  }
}
