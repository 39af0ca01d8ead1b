package io.llmgw.extproc;

import com.sun.net.httpserver.HttpsConfigurator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.api.ConfigException;
import io.llmgw.api.tls.ReloadingIdentity;
import io.llmgw.extproc.control.ConfigSource;
import io.llmgw.extproc.control.FileConfigSource;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.control.cluster.ClusterConfigSource;
import io.llmgw.extproc.control.cluster.PeerDiscovery;
import io.llmgw.extproc.control.cluster.PlanApplier;
import io.llmgw.extproc.observe.AdminHandler;
import io.llmgw.extproc.observe.BatchStatusReader;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.observe.GatewayStatus;
import io.llmgw.extproc.observe.HealthServer;
import io.llmgw.extproc.observe.HealthWatch;
import io.llmgw.extproc.observe.PeerMetrics;
import io.llmgw.extproc.observe.PodsReport;
import io.llmgw.extproc.observe.PoolLoadReport;
import io.llmgw.extproc.observe.TlsMetrics;
import io.llmgw.extproc.peers.PeerExchange;
import io.llmgw.extproc.peers.PeerLoop;
import io.llmgw.extproc.server.ExtProcService;
import io.llmgw.extproc.server.StreamLimits;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.picker.Ticker;
import io.llmgw.picker.kvcache.EngineBlockIndex;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.scraper.MetricsScraper;
import io.llmgw.scraper.kvevents.KvEventSubscriber;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Endpoint Picker: ext_proc, health and metrics servers over the {@link Components}, fed by a file or a
 * cluster. A file is loaded before any port is opened, so a bad file stops start-up without side effects; in a
 * cluster the ports open at once and readiness waits for the informers' first lists.
 */
public final class Epp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Epp.class);

  static {
    // The JDK HTTP server behind the metrics port drops a connection whose request has not arrived whole in this many
    // seconds (it reads the property once, when its first server is made); an operator's own value wins.
    System.getProperties().putIfAbsent("sun.net.httpserver.maxReqTime", "30");
  }

  private final EppSettings settings;
  private final Clock clock;
  private final ScheduledExecutorService scheduler = DaemonThreads.scheduler("epp-scheduler");
  private final ExecutorService flowDispatcher = DaemonThreads.single("epp-flow");
  private final EppMetrics metrics = new EppMetrics();
  private final MetricsScraper scraper;
  /** Follows the pods' KV-cache events when the pools publish them; null otherwise. */
  private final KvEventSubscriber kvEvents;
  private final Components parts;
  /** Other replicas' in-flight counts and routed prompts in, this one's out (issue 29), on a thread of their own. */
  private final PeerExchange peers;
  private final PeerLoop peerLoop = new PeerLoop();
  /** Cluster mode with --peers-service: the peers, from the EPP Service's ready endpoints; null otherwise. */
  private PeerDiscovery discovery;
  private final HealthServer health = new HealthServer();
  private HealthWatch healthWatch;
  private final ConfigSource config;
  /** The Kubernetes client this EPP made itself (cluster mode without one given), closed with it. */
  private final KubernetesClient ownClient;
  private Server grpc;
  private HTTPServer metricsServer;
  /** The certificate ext_proc (and the metrics port, if asked) serves, reloaded from its files; null in plaintext. */
  private ReloadingIdentity identity;
  private final ExecutorService metricsExecutor = Executors.newVirtualThreadPerTaskExecutor();
  /** Readiness needs both: routes and pods loaded, and the ext_proc server listening. */
  private volatile boolean serving;

  private Epp(EppSettings s, Clock clock, Ticker ticker, KubernetesClient givenClient) {
    settings = s;
    this.clock = clock;
    scraper = new MetricsScraper(s.scrape(), scheduler, clock, metrics);
    try {
      s.listen().checkPeers();
      parts = Components.wire(s, clock, ticker, scheduler, flowDispatcher, scraper, metrics, s.adapters().runtime());
    } catch (RuntimeException e) {
      scraper.close();
      scheduler.shutdownNow();
      flowDispatcher.shutdownNow();
      throw e;
    }
    peers = new PeerExchange(s.listen().peers(), s.listen().peerKey(), parts.datastore().inFlight(),
        parts.datastore().peers(), parts.datastore().peerSpend(), parts.tenants()::spentHere, parts.routedPrefixes(),
        parts.flow().shared(), scheduler, s.listen().peerWarmTimeout(), peerLoop);
    peers.onReady(() -> health.setReady(ready()));
    peers.watchFrom(s.listen().bindHost());
    PeerMetrics.register(parts.metrics().registry(), peers, parts.routedPrefixes(), parts.datastore().peerSpend());
    kvEvents = KvEventsWiring.subscriber(s, parts);
    parts.datastore().onChange(t -> health.setReady(ready()));
    parts.metrics().watchReadiness(health::serving);
    switch (s.source()) {
      case SourceSettings.File f -> {
        ownClient = null;
        config = new FileConfigSource(f, scheduler, parts.datastore()::apply, parts::configRejected);
      }
      case SourceSettings.Cluster c -> {
        ownClient = givenClient == null ? new KubernetesClientBuilder().build() : null;
        KubernetesClient k8s = givenClient == null ? ownClient : givenClient;
        ClusterConfigSource cluster = new ClusterConfigSource(k8s, c, parts.datastore(), clock);
        parts.metrics().watchCluster(cluster);
        config = cluster;
        if (s.capacity().applyPlan()) { // the plan's counts to the pools' scale targets, from the status writer
          new PlanApplier(k8s, parts.capacity()::plan, () -> parts.datastore().topology().poolsByKey(),
              cluster::leading).schedule(scheduler, c.statusInterval());
        }
        if (s.listen().peerService() != null) {
          discovery = new PeerDiscovery(k8s, c.namespace(),
              s.listen().peerService(), s.listen().healthPort(), peers::setDiscovered);
        }
      }
    }
  }

  /**
   * File mode, or cluster mode with a client configured from the environment (in-cluster or kubeconfig).
   * @throws IllegalArgumentException when the settings' scheduling configuration cannot be assembled
   */
  public static Epp start(EppSettings settings, Clock clock) throws IOException, ConfigException {
    return start(settings, clock, null);
  }

  /** @param client the Kubernetes client for cluster mode (not closed by the EPP); null to make one */
  public static Epp start(EppSettings settings, Clock clock, KubernetesClient client)
      throws IOException, ConfigException {
    Epp epp = new Epp(settings, clock, Ticker.system(), client);
    try {
      epp.config.start();
      epp.startServing();
      return epp;
    } catch (IOException | ConfigException | RuntimeException e) {
      epp.close();
      throw e;
    }
  }

  private void startServing() throws IOException {
    ListenSettings l = settings.listen();
    scraper.start();
    if (discovery != null) { // the peers known before the blocks are asked for and the warm start counts them
      discovery.start(settings.listen().peerWarmTimeout());
    }
    if (kvEvents != null) {
      peers.shareBlocks(parts.engineBlocks()); // and takes what a listed peer knows, before subscribing
      kvEvents.start();
    }
    new Housekeeping(settings, parts).schedule(scheduler);
    Duration scraperSilence = Duration.ofMillis(Math.max(5_000, 20 * settings.scrape().interval().toMillis()));
    healthWatch = new HealthWatch(parts.streams().vitals().watch("the metrics scraper", scraper::lastTickMillis,
        scraperSilence), health).start(1_000);
    // the peers' watch on the health port, on the peer loop, signed with their shared secret, and only when there are
    // peers: it carries only counts, and works whether ext_proc is on TLS
    health.start(new InetSocketAddress(l.bindHost(), l.healthPort()), l.peered() ? peerLoop : null,
        l.peered() ? List.of(peers.service()) : List.of());
    identity = l.tls() == null ? null : ReloadingIdentity.start(l.tls(), EppTls.certificateNames(l), scheduler);
    if (identity != null) {
      TlsMetrics.register(parts.metrics().registry(), identity);
    }
    InetSocketAddress grpcAddress = new InetSocketAddress(l.bindHost(), l.grpcPort());
    // The health service on the ext_proc port too: a proxy health-checks over the same (TLS) connection it sends
    // streams on, while the kubelet, which cannot speak TLS to a gRPC probe, uses the plaintext health port.
    grpc = (identity == null ? NettyServerBuilder.forAddress(grpcAddress)
        : NettyServerBuilder.forAddress(grpcAddress, EppTls.credentials(identity)))
        // Frames are handled on the connection's event loop: nothing on the stream path blocks (waits are
        // callbacks), and handing every frame to a pool thread cost more CPU than the EPP's own work (bench/README.md,
        // "The exchange at the protocol's cost").
        .directExecutor().addService(new ExtProcService(parts.streams())).addService(health.service())
        .permitKeepAliveTime(l.keepAlivePermit().toMillis(), TimeUnit.MILLISECONDS).build().start();
    // One virtual thread per connection: a client that connects and never finishes its request holds only its own
    // thread, so scrapes are served whatever slow or idle clients do (a small pool would block the acceptor).
    HTTPServer.Builder metricsBuilder = HTTPServer.builder().hostname(l.bindHost()).port(l.metricsPort())
        .executorService(metricsExecutor).registry(parts.metrics().registry())
        .authenticator(AdminHandler.authenticator(l.admin()))
        .defaultHandler(new AdminHandler(parts.adapters(), parts.datastore(), parts.status(),
            new PoolLoadReport(parts.datastore(), parts.flow(), settings.saturation().detector(clock)),
            new PodsReport(parts.datastore(), parts.adapters(), clock), parts.decisions(),
            new BatchStatusReader(l.batchStatus(), Ticker.system()), l.admin()));
    if (l.metricsTls()) {
      metricsBuilder.httpsConfigurator(new HttpsConfigurator(EppTls.sslContext(identity)));
    }
    metricsServer = metricsBuilder.buildAndStart();
    peers.start();
    serving = true;
    health.setReady(ready());
    LOG.info("EPP {}: ext_proc on {}:{} ({}), health on {}, metrics on {} ({}{}); scheduling {} ({})",
        parts.datastore().loaded() ? "ready" : "listening (ready once the cluster's objects are listed)",
        l.bindHost(), grpc.getPort(), EppTls.describe(l.tls()), health.port(), metricsServer.getPort(),
        l.metricsTls() ? "TLS, " : "", l.admin(), parts.profile().describe(), settings.scheduling().source());
    LOG.info("lifecycle plugins: {}", parts.streams().director().describe());
  }

  /** Readiness: listening, routes and pods loaded, every peer heard (or the warm-start time ran out). */
  private boolean ready() {
    return serving && parts.datastore().loaded() && peers.ready();
  }

  public int grpcPort() {
    return grpc.getPort();
  }

  /** Whether ext_proc is served over TLS. */
  public boolean servesTls() {
    return identity != null;
  }

  public int healthPort() {
    return health.port();
  }

  public int metricsPort() {
    return metricsServer.getPort();
  }

  public Datastore datastore() {
    return parts.datastore();
  }

  /** Streams open and request-body bytes buffered now, as the limits count them. */
  public StreamLimits streamLimits() {
    return parts.streams().limits();
  }

  /** What the EPP has learned of each pod's latency, for tests that check the learning end to end. */
  public LatencyEstimator latencyEstimator() {
    return parts.latency().estimator();
  }

  /** What the pods' KV-cache events say they hold, and which pods are trusted now. */
  public EngineBlockIndex engineBlocks() {
    return parts.engineBlocks();
  }

  /** The thread of the exchange with the peer replicas, for tests that hold it up. */
  public PeerLoop peerLoop() {
    return peerLoop;
  }

  /** Pools, routes and objectives as {@code ./llmgw status} shows them. */
  public GatewayStatus.Report status() {
    return parts.status().report();
  }

  public ConfigSource configSource() {
    return config;
  }

  public void awaitTermination() throws InterruptedException {
    grpc.awaitTermination();
  }

  /** Stops at once for tests and in-process use: readiness off, new streams refused, open ones given the grace. */
  @Override
  public void close() {
    stop(Duration.ZERO);
  }

  /**
   * Stops as a replica must under a rolling restart or scale-down (SIGTERM): readiness off first, while ext_proc still
   * takes new streams for the drain period so the proxies move away before anything is refused; then new streams are
   * refused (GOAWAY) and the open ones have the shutdown grace to finish.
   */
  public void drainAndClose() {
    stop(settings.listen().drainPeriod());
  }

  private void stop(Duration drain) {
    boolean wasServing = serving;
    serving = false;
    health.setReady(false);
    if (wasServing && drain.isPositive()) {
      LOG.info("EPP stopping: readiness off, still taking streams for {} ms (--drain-period), then {} open stream(s) "
          + "get {} s to finish", drain.toMillis(), parts.streams().limits().openStreams(),
          settings.listen().shutdownGrace().toSeconds());
      try {
        Thread.sleep(drain);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else if (wasServing) {
      LOG.info("EPP stopping: readiness off, refusing new streams, draining open ones");
    }
    config.close();
    if (discovery != null) {
      discovery.close();
    }
    peers.close(); // the peers forget this replica's counts now, not when they go stale
    if (grpc != null) {
      grpc.shutdown();
      try {
        if (!grpc.awaitTermination(settings.listen().shutdownGrace().toMillis(), TimeUnit.MILLISECONDS)) {
          LOG.warn("EPP stopping: {} stream(s) still open after the shutdown grace are cut",
              parts.streams().limits().openStreams());
          grpc.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        grpc.shutdownNow();
      }
    }
    scraper.close();
    parts.streams().tracing().close(); // after the streams: their spans are sent, not dropped
    if (kvEvents != null) {
      try {
        kvEvents.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    scheduler.shutdownNow();
    flowDispatcher.shutdownNow();
    if (identity != null) {
      identity.close();
    }
    if (ownClient != null) {
      ownClient.close();
    }
    if (metricsServer != null) {
      metricsServer.close();
      metricsExecutor.shutdownNow();
    }
    if (healthWatch != null) {
      healthWatch.close();
    }
    health.close();
    peerLoop.close();
    if (wasServing) {
      LOG.info("EPP stopped");
    }
  }
}
