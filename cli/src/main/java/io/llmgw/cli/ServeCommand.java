package io.llmgw.cli;

import io.llmgw.adapters.CopySettings;
import io.llmgw.api.ConfigException;
import io.llmgw.api.TokenFile;
import io.llmgw.api.cli.Converters;
import io.llmgw.api.tls.ServerTls;
import io.llmgw.envoy.xds.XdsServer;
import io.llmgw.envoy.xds.XdsSettings;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.RequestSettings;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.observe.AdminAccess;
import io.llmgw.extproc.pluginfile.FileSettings;
import io.llmgw.extproc.pluginfile.PluginConfigFile;
import io.llmgw.extproc.plugins.DefaultPlugins;
import io.llmgw.extproc.request.prepare.PromptTokensProducer;
import io.llmgw.extproc.request.prepare.SessionIdProducer;
import io.llmgw.picker.SessionKey;
import io.llmgw.picker.config.PluginSpec;
import io.llmgw.picker.config.PolicyShorthand;
import io.llmgw.picker.config.SchedulingConfig;
import io.llmgw.picker.scorers.SessionAffinityScorer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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

  @Option(names = "--namespace", description = "Cluster mode: namespace to watch (default: the pod's own).")
  String namespace;

  @Option(names = "--pool-selector", split = ",", paramLabel = "KEY=VALUE",
      description = "Cluster mode: serve only InferencePools with these labels, so EPP deployments can split a "
          + "namespace (default: every pool).")
  Map<String, String> poolSelector = new LinkedHashMap<>();

  @Option(names = "--lease-name", defaultValue = "llmgw-epp",
      description = "Cluster mode: Lease the replicas elect their status writer with (default: ${DEFAULT-VALUE}).")
  String leaseName;

  @Option(names = "--identity", defaultValue = "${env:HOSTNAME:-llmgw-epp}",
      description = "Cluster mode: this replica's name in the Lease (default: $HOSTNAME, the pod name).")
  String identity;

  @Option(names = "--no-leader-election", description = "Cluster mode: a single replica writes status without a Lease.")
  boolean noLeaderElection;

  @Option(names = "--bind",
      description = "Address to listen on (default: 127.0.0.1 with --config, where the proxy runs "
          + "beside the EPP; 0.0.0.0 with --kubernetes, where the gateway's pods connect from elsewhere).")
  String bind;

  @Option(names = "--admin-token-file", description = "File holding the token that admin writes (POST /admin/...) "
      + "need as `Authorization: Bearer TOKEN`; without one they are off (default: none).")
  Path adminTokenFile;

  @Option(names = "--read-token-file", description = "File holding a token that reads of the metrics/admin port "
      + "(/metrics, GET /admin/...) need; the admin token works too (default: none, reads are open).")
  Path readTokenFile;

  @Option(names = "--tls", negatable = true, description = "Serve ext_proc (and the gRPC health service on its port) "
      + "over TLS; a self-signed certificate when no --tls-cert-file is given (default: on with --kubernetes, off with "
      + "--config).")
  Boolean tls;

  @Option(names = "--tls-cert-file", paramLabel = "FILE", description = "PEM certificate chain to serve (a Secret's "
      + "tls.crt); implies --tls. Read again every --tls-reload-period, so a rotated certificate needs no restart.")
  Path tlsCertFile;

  @Option(names = "--tls-key-file", paramLabel = "FILE", description = "PEM private key of --tls-cert-file (tls.key).")
  Path tlsKeyFile;

  @Option(names = "--tls-client-ca-file", paramLabel = "FILE", description = "Mutual TLS: only clients with a "
      + "certificate from these authorities (PEM) may open ext_proc streams; implies --tls.")
  Path tlsClientCaFile;

  @Option(names = "--tls-reload-period", converter = Converters.PositiveDuration.class, defaultValue = "10s",
      description = "How often the certificate files are read again (default: ${DEFAULT-VALUE}).")
  Duration tlsReloadPeriod;

  @Option(names = "--metrics-tls", description = "Serve the metrics/admin port over TLS too, with the same certificate "
      + "(Prometheus then scrapes with scheme https).")
  boolean metricsTls;

  @Option(names = "--otlp-endpoint", paramLabel = "URL", description = "Send OpenTelemetry traces of the requests "
      + "(a span per request, one per phase, the decision as attributes) to this OTLP/HTTP collector, e.g. "
      + "http://127.0.0.1:4318; the caller's traceparent is followed and the routed request carries the request's "
      + "span (default: no traces).")
  java.net.URI otlpEndpoint;

  @Option(names = "--trace-sample-ratio", defaultValue = "0.1", paramLabel = "0..1", description = "With "
      + "--otlp-endpoint: the share of requests traced that come without a sampled traceparent (one that comes with "
      + "one is traced as its caller chose) (default: ${DEFAULT-VALUE}).")
  double traceSampleRatio;

  @Option(names = "--batch-status", paramLabel = "HOST:PORT", description = "The batch service's address (`llmgw "
      + "batch --listen`): the status page shows its queues and budgets, read through this EPP at most once a second "
      + "(default: none).")
  String batchStatus;

  @Option(names = "--drain-period", converter = Converters.PositiveDuration.class, defaultValue = "5s",
      description = "On SIGTERM: readiness goes off at once, and new streams are still served this long so the proxies "
          + "move to another replica first (longer than their health-check interval × unhealthy threshold; default: "
          + "${DEFAULT-VALUE}).")
  Duration drainPeriod;

  @Option(names = "--shutdown-grace", converter = Converters.PositiveDuration.class, defaultValue = "30s",
      description = "Then: how long the streams still open may go on before they are cut (keep it under the pod's "
          + "terminationGracePeriodSeconds minus --drain-period; default: ${DEFAULT-VALUE}).")
  Duration shutdownGrace;

  @Option(names = "--grpc-port", description = "ext_proc port (default: ${DEFAULT-VALUE}).")
  int grpcPort;

  @Option(names = "--health-port", description = "gRPC health port (default: ${DEFAULT-VALUE}).")
  int healthPort;

  @Option(names = "--metrics-port", description = "Prometheus metrics port (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--policy", converter = PolicyConverter.class,
      description = "seed (pack each adapter onto few pods; default), scorers (GIE queue/kv-cache/prefix/lora-affinity), "
          + "precise (scorers, with prefixes matched against the pods' KV-cache events: --kv-events-port), latency "
          + "(the pod with the least predicted latency, learned online), or a baseline for comparison: round-robin, "
          + "random, least-request. Short for a plugin configuration.")
  PolicyShorthand policy;

  @Option(names = "--plugins-config", paramLabel = "FILE",
      description = "Scheduling plugins and profile in the reference EPP's format (kind: EndpointPickerConfig), "
          + "instead of --policy; docs/architecture.md lists the plugin types.")
  Path pluginsConfig;

  @Option(names = "--session-affinity", paramLabel = "WEIGHT",
      description = "Weight of the session-affinity scorer added to the --policy: a request naming a session goes to "
          + "the pod that served the session last while that pod has room; 0 leaves it out. Default: 2, except with "
          + "--policy scorers, whose prefix-cache scorer already follows conversations (the two together crowd pods: "
          + "bench/README.md), and with --plugins-config, which lists it when it wants it.")
  Double sessionAffinity;

  @Option(names = "--session-header", paramLabel = "NAME", defaultValue = SessionKey.DEFAULT_HEADER,
      description = "The request header that names a session (default: ${DEFAULT-VALUE}).")
  String sessionHeader;

  @Option(names = "--session-from-user",
      description = "Without the session header, OpenAI's body field 'user' names the session.")
  boolean sessionFromUser;

  @Option(names = "--adapter-pending-threshold",
      description = "Seed policy: pending requests for an adapter on a pod before the next pod takes over "
          + "(default: ${DEFAULT-VALUE}).")
  int threshold;

  @Option(names = "--scrape-interval", converter = Converters.PositiveDuration.class,
      description = "How often each pod's /metrics is polled (default: ${DEFAULT-VALUE}).")
  Duration scrapeInterval;

  @Option(names = "--adapter-warm-window", converter = Converters.PositiveDuration.class,
      description = "How long an adapter a pod reported running or waiting still counts as active there after its "
          + "reports stop naming it (vLLM keeps it in its GPU slot until another adapter needs the slot); the seed "
          + "policy and the LoRA-affinity scorer prefer such pods (default: ${DEFAULT-VALUE}).")
  Duration adapterWarmWindow;

  @Option(names = "--tokenizer", paramLabel = "sim|hf:PATH",
      description = "How the precise prefix scorer turns prompts into the engine's token ids: sim (the simulator's), "
          + "or hf:PATH to a model's Hugging Face tokenizer.json (completion prompts; chat prompts need the model's "
          + "chat template, not rendered yet, and are matched approximately). Without it every prompt is matched "
          + "approximately.")
  String tokenizer;

  @Option(names = "--stale-after", converter = Converters.PositiveDuration.class,
      description = "Pods whose metrics are older are not picked (default: ${DEFAULT-VALUE}).")
  Duration staleAfter;

  @Option(names = "--max-body-bytes",
      description = "Larger request bodies are answered 413 (default: ${DEFAULT-VALUE}).")
  int maxBodyBytes;

  @Option(names = {"--destination-fallbacks", "--header-fallbacks"},
      description = "Name the primary endpoint, then its fallbacks, in both the destination header and the envoy.lb "
          + "metadata, for proxies that walk the list (Envoy's override_host policy, the dev proxy). Off: both carry "
          + "the primary alone, which Envoy's ORIGINAL_DST cluster needs.")
  boolean destinationFallbacks;

  @Option(names = "--max-request-duration", converter = Converters.PositiveDuration.class,
      description = "A routed request still counted in flight after this long stops counting against its pod "
          + "(default: ${DEFAULT-VALUE}).")
  Duration maxRequestDuration;

  @Option(names = "--explain-every", defaultValue = "" + RequestSettings.DEFAULT_EXPLAIN_EVERY,
      description = "Keep one decision in this many explained at /admin/decisions and on the status page; 0 keeps "
          + "only those of requests sent with an x-llmgw-explain header (default: ${DEFAULT-VALUE}).")
  int explainEvery;

  @Option(names = "--request-idle-timeout", converter = Converters.PositiveDuration.class,
      description = "A request still arriving that sends nothing for this long is answered 408; a stream that sends "
          + "not even its headers is ended (default: ${DEFAULT-VALUE}).")
  Duration requestIdleTimeout;

  @Option(names = "--max-streams",
      description = "ext_proc streams open at once; more are answered 503 (default: ${DEFAULT-VALUE}).")
  int maxStreams;

  @Option(names = "--max-buffered-bytes",
      description = "Bytes of unfinished request bodies all streams together may hold; a body that would go over is "
          + "answered 503 (default: a quarter of the heap, here ${DEFAULT-VALUE}).")
  long maxBufferedBytes;

  @Option(names = "--trust-rewrite-header",
      description = "Obey x-gateway-model-name-rewrite, among the route's own targets. Only when a proxy in front sets "
          + "it and drops the client's: by default a client's rewrite header is ignored.")
  boolean trustRewriteHeader;

  @Option(names = "--load-wait-timeout", converter = Converters.PositiveDuration.class,
      description = "How long a request waits for its adapter (a route target with a source) to be loaded "
          + "(default: ${DEFAULT-VALUE}).")
  Duration loadWaitTimeout;

  @Option(names = "--adapter-capacity",
      description = "Adapters a pod holds before the least recently used idle one is unloaded for a new one "
          + "(default: ${DEFAULT-VALUE}).")
  int adapterCapacity;

  @Option(names = "--mmesh-port",
      description = "Load adapters through the ModelMesh runtime SPI (mmesh.ModelRuntime gRPC) on this port of each "
          + "pod instead of vLLM's runtime LoRA API (default: 0, vLLM's API).")
  int mmeshPort;

  @Option(names = "--xds-port", defaultValue = "0",
      description = "Also serve a plain Envoy its whole configuration over xDS (ADS) on this port, following every "
          + "change of pools and routes; start Envoy with envoy-config/envoy-xds.yaml (default: off).")
  int xdsPort;

  @Option(names = "--xds-listener-port", defaultValue = "8080",
      description = "xDS: the port Envoy's listener takes client traffic on (default: ${DEFAULT-VALUE}).")
  int xdsListenerPort;

  @Option(names = "--xds-epp-host", defaultValue = "127.0.0.1",
      description = "xDS: how Envoy reaches this EPP, e.g. its Service's DNS name (default: ${DEFAULT-VALUE}).")
  String xdsEppHost;

  @Option(names = "--xds-batch-service",
      description = "xDS: host:port of the batch service (`llmgw batch`); Envoy then sends /v1/files and /v1/batches "
          + "there without the EPP (default: none).")
  String xdsBatchService;

  @Option(names = "--xds-epp-ca-file", paramLabel = "PATH", description = "xDS, when the EPP serves TLS: where Envoy "
      + "finds the authorities to verify the EPP's certificate (a path in Envoy's container; default: none, Envoy "
      + "accepts any certificate, as a self-signed EPP needs).")
  String xdsEppCaFile;

  @Option(names = "--xds-epp-cert-file", paramLabel = "PATH",
      description = "xDS, mutual TLS: Envoy's client certificate (a path in Envoy's container).")
  String xdsEppCertFile;

  @Option(names = "--xds-epp-key-file", paramLabel = "PATH", description = "xDS, mutual TLS: its key.")
  String xdsEppKeyFile;

  @picocli.CommandLine.Mixin
  FlowOptions flowOptions = new FlowOptions();

  @picocli.CommandLine.Mixin
  KvEventOptions kvEventOptions = new KvEventOptions();

  @picocli.CommandLine.Mixin
  PeerOptions peerOptions = new PeerOptions();

  @picocli.CommandLine.Mixin
  WireOptions wireOptions = new WireOptions();

  @picocli.CommandLine.Mixin
  TenancyOptions tenancyOptions = new TenancyOptions();

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

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
      System.err.println("llmgw: " + e.getMessage());
      return 2;
    } catch (ConfigException e) {
      System.err.println("llmgw: cannot read the plugin configuration: " + e.getMessage());
      return 2;
    }
    if (source.kubernetes) {
      Map<String, String> props = new java.util.HashMap<>();
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
      System.err.println("llmgw: cannot start: " + e.getMessage());
      return 2;
    }
    XdsServer xds;
    try {
      xds = xdsPort > 0 ? startXds(epp) : null;
    } catch (java.io.IOException | IllegalArgumentException e) {
      System.err.println("llmgw: cannot serve xDS on port " + xdsPort + ": " + e.getMessage());
      epp.close();
      return 2;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      epp.drainAndClose();
      if (xds != null) {
        xds.close();
      }
    }, "epp-shutdown"));
    epp.awaitTermination();
    return 0;
  }

  static final double DEFAULT_SESSION_AFFINITY = 2;

  /** The scheduling from --plugins-config, else from --policy; with the session-affinity scorer when asked for. */
  private SchedulingConfig scheduling(PluginConfigFile.Loaded file) {
    SchedulingConfig base = file != null ? file.config() : policy.config(threshold);
    if (tokenizer != null) {
      if (base.lists(PromptTokensProducer.TYPE)) {
        throw new IllegalArgumentException("--tokenizer and " + base.source() + "'s " + PromptTokensProducer.TYPE
            + " both choose the tokenizer; give one");
      }
      base = base.withPlugin(PluginSpec.of(PromptTokensProducer.TYPE, Map.of(PromptTokensProducer.TOKENIZER,
          tokenizer)));
    }
    double weight = sessionAffinity != null ? sessionAffinity
        : pluginsConfig != null || policy == PolicyShorthand.SCORERS || policy == PolicyShorthand.PRECISE ? 0
        : DEFAULT_SESSION_AFFINITY;
    if (!(weight >= 0 && weight <= 1000)) {
      throw new IllegalArgumentException("--session-affinity is a weight between 0 and 1000, not " + weight);
    }
    if (weight == 0) {
      return base;
    }
    SchedulingConfig withScorer = base.withScorer(PluginSpec.of(SessionAffinityScorer.TYPE), weight,
        " + --session-affinity " + weight);
    boolean sessionFlags = spec.commandLine().getParseResult().hasMatchedOption("--session-header")
        || sessionFromUser;
    if (base.lists(SessionIdProducer.TYPE) && sessionFlags) {
      throw new IllegalArgumentException("--session-header and --session-from-user say where sessions come from, and "
          + base.source() + " says it too (its " + SessionIdProducer.TYPE + "); give one");
    }
    return base.lists(SessionIdProducer.TYPE) ? withScorer : withScorer.withPlugin(PluginSpec.of(
        SessionIdProducer.TYPE, Map.of("sessionHeader", sessionHeader.toLowerCase(java.util.Locale.ROOT),
            "useUserField", sessionFromUser)));
  }

  /** The flags over the settings' defaults; the scheduling from --plugins-config, else from --policy. */
  public EppSettings settings() throws ConfigException {
    if (pluginsConfig != null && spec.commandLine().getParseResult().hasMatchedOption("--policy")) {
      throw new IllegalArgumentException("--policy and --plugins-config both choose the scheduling; give one");
    }
    EppSettings d = EppSettings.defaults(sourceSettings());
    PluginConfigFile.Loaded file = pluginsConfig != null
        ? PluginConfigFile.loadFile(pluginsConfig, w -> System.err.println("llmgw: " + w)) : null;
    FileSettings fromFile = file != null ? file.settings() : FileSettings.NONE;
    Duration interval = fromFile.scrapeInterval() != null && !spec.commandLine().getParseResult()
        .hasMatchedOption("--scrape-interval") ? fromFile.scrapeInterval() : scrapeInterval;
    RequestSettings r = d.requests();
    CopySettings c = d.copies();
    String host = bind != null ? bind : source.kubernetes ? "0.0.0.0" : "127.0.0.1";
    AdminAccess access;
    if (peerOptions.service != null && !source.kubernetes) {
      throw new IllegalArgumentException("--peers-service finds the peers in a cluster (--kubernetes); list them with "
          + "--peers in file mode");
    }
    try {
      access = AdminAccess.of(TokenFile.read(adminTokenFile), TokenFile.read(readTokenFile));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("cannot read a token file: " + e.getMessage());
    }
    return d.withListen(d.listen().on(host, grpcPort, healthPort, metricsPort).withAdmin(access)
        .withTls(serverTls(), metricsTls).withStopping(drainPeriod, shutdownGrace).withPeers(peerOptions.peers)
        .withPeerService(peerOptions.service).withPeerKey(peerOptions.key()).withBatchStatus(batchStatus))
        .withScheduling(scheduling(file))
        .withRequests(new RequestSettings(maxBodyBytes, r.bytesPerToken(), r.maxFallbacks(), destinationFallbacks,
            trustRewriteHeader, maxRequestDuration, maxStreams, maxBufferedBytes, requestIdleTimeout, explainEvery,
            r.traces().to(otlpEndpoint, traceSampleRatio)).withHooks(wireOptions.hooks()))
        .withScrape(d.scrape().withInterval(interval).withKvEvents(kvEventOptions.settings(d.scrape().kvEvents(),
            fromFile))
            .withAdapterWarmWindow(adapterWarmWindow), staleAfter)
        .withAdapters(d.adapters().withLoadWaitTimeout(loadWaitTimeout).withCapacityPerPod(adapterCapacity)
            .withMmeshPort(mmeshPort))
        // a copy busier than the seed policy's threshold on two ticks running earns another
        .withCopies(new CopySettings(c.minCopies(), c.recentWindow(), c.recentUses(), threshold, c.tick()))
        .withFlow(flowOptions.flow(), flowOptions.saturation())
        .withTenancy(tenancyOptions.tenancy());
  }

  /** TLS when asked for, or given files, or by default in a cluster; null for plaintext. */
  private ServerTls serverTls() {
    boolean files = tlsCertFile != null || tlsKeyFile != null || tlsClientCaFile != null;
    boolean on = tls != null ? tls : files || source.kubernetes;
    if (!on) {
      if (files || metricsTls) {
        throw new IllegalArgumentException(
            "--no-tls contradicts --tls-cert-file, --tls-client-ca-file and --metrics-tls");
      }
      return null;
    }
    return new ServerTls(tlsCertFile, tlsKeyFile, tlsClientCaFile, tlsReloadPeriod);
  }

  /** The xDS server follows the EPP's configuration: whatever the datastore applies is served to Envoy. */
  private XdsServer startXds(Epp epp) throws java.io.IOException {
    XdsSettings served = new XdsSettings("0.0.0.0", xdsListenerPort, xdsEppHost, epp.grpcPort())
        .withBatchService(xdsBatchService);
    if (epp.servesTls()) {
      served = served.withEppTls(new XdsSettings.EppTls(xdsEppCaFile, xdsEppCertFile, xdsEppKeyFile));
    }
    XdsServer xds = XdsServer.start(bind, xdsPort, served);
    epp.datastore().onChange(t -> xds.update(t.config()));
    xds.update(epp.datastore().topology().config());
    return xds;
  }

  private SourceSettings sourceSettings() {
    if (!source.kubernetes) {
      return new SourceSettings.File(source.config, Duration.ofSeconds(1));
    }
    return SourceSettings.Cluster.defaults(namespace, identity + "-" + UUID.randomUUID().toString().substring(0, 8))
        .withPoolLabels(poolSelector).withLeaderElection(!noLeaderElection).withLeaseName(leaseName);
  }

  static final class PolicyConverter implements CommandLine.ITypeConverter<PolicyShorthand> {
    @Override
    public PolicyShorthand convert(String value) {
      try {
        return PolicyShorthand.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a policy: seed, scorers, latency, "
            + "round-robin, random or least-request");
      }
    }
  }

}
