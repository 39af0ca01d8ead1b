package io.llmgw.extproc;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.api.ConfigException;
import io.llmgw.extproc.control.ConfigSource;
import io.llmgw.extproc.control.FileConfigSource;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.control.cluster.ClusterConfigSource;
import io.llmgw.extproc.observe.AdminHandler;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.observe.GatewayStatus;
import io.llmgw.extproc.observe.HealthServer;
import io.llmgw.extproc.observe.HealthWatch;
import io.llmgw.extproc.observe.PoolLoadReport;
import io.llmgw.extproc.server.ExtProcService;
import io.llmgw.extproc.server.StreamLimits;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.picker.latency.LatencyEstimator;
import io.llmgw.picker.Ticker;
import io.llmgw.scraper.MetricsScraper;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
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
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "30");
    }
  }

  private final EppSettings settings;
  private final ScheduledExecutorService scheduler = daemons("epp-scheduler");
  private final ExecutorService flowDispatcher = Executors.newSingleThreadExecutor(r -> daemon(r, "epp-flow"));
  private final EppMetrics metrics = new EppMetrics();
  private final MetricsScraper scraper;
  private final Components parts;
  private final HealthServer health = new HealthServer();
  private HealthWatch healthWatch;
  private final ConfigSource config;
  /** The Kubernetes client this EPP made itself (cluster mode without one given), closed with it. */
  private final KubernetesClient ownClient;
  private Server grpc;
  private HTTPServer metricsServer;
  private final ExecutorService metricsExecutor = Executors.newVirtualThreadPerTaskExecutor();
  /** Readiness needs both: routes and pods loaded, and the ext_proc server listening. */
  private volatile boolean serving;

  private Epp(EppSettings s, Clock clock, Ticker ticker, KubernetesClient givenClient) {
    settings = s;
    scraper = new MetricsScraper(s.scrape(), scheduler, clock, metrics);
    try {
      parts = Components.wire(s, clock, ticker, scheduler, flowDispatcher, scraper, metrics, s.adapters().runtime());
    } catch (RuntimeException e) {
      scraper.close();
      scheduler.shutdownNow();
      flowDispatcher.shutdownNow();
      throw e;
    }
    parts.datastore().onChange(t -> health.setReady(serving));
    switch (s.source()) {
      case SourceSettings.File f -> {
        ownClient = null;
        config = new FileConfigSource(f, scheduler, parts.datastore()::apply, e -> parts.metrics().configRejected());
      }
      case SourceSettings.Cluster c -> {
        ownClient = givenClient == null ? new KubernetesClientBuilder().build() : null;
        ClusterConfigSource cluster = new ClusterConfigSource(givenClient == null ? ownClient : givenClient, c,
            parts.datastore(), clock);
        parts.metrics().watchCluster(cluster);
        config = cluster;
      }
    }
  }

  /**
   * File mode, or cluster mode with a client configured from the environment (in-cluster or kubeconfig).
   *
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

  /** Requests routed longer ago than the longest a request may take stop counting against their pods. */
  private void expireInFlight() {
    Duration max = settings.requests().maxRequestDuration();
    int expired = parts.datastore().inFlight().expireOlderThan(max);
    if (expired > 0) {
      LOG.warn("{} routed request(s) still open after {} s stopped counting in flight (--max-request-duration)",
          expired, max.toSeconds());
      parts.metrics().inFlightExpired(expired);
      parts.flow().signal();
    }
  }

  /** Requests that went silent while arriving give back their stream slot and buffered bytes. */
  private void expireIdleStreams() {
    int expired = parts.streams().limits().expireIdle();
    if (expired > 0) {
      LOG.warn("{} request stream(s) sent nothing for {} ms while their request arrived; answered 408 or ended "
          + "(--request-idle-timeout)", expired, settings.requests().idleTimeout().toMillis());
      parts.metrics().idleStreamsExpired(expired);
    }
  }

  private void startServing() throws IOException {
    ListenSettings l = settings.listen();
    scraper.start();
    long reap = settings.adapters().reaperPeriod().toMillis();
    scheduler.scheduleWithFixedDelay(() -> parts.adapters().reaper().reap(parts.datastore().allStates()), reap, reap,
        TimeUnit.MILLISECONDS);
    long sweep = Math.min(1_000, settings.requests().maxRequestDuration().toMillis() / 10);
    scheduler.scheduleWithFixedDelay(this::expireInFlight, sweep, sweep, TimeUnit.MILLISECONDS);
    long idleSweep = Math.min(1_000, settings.requests().idleTimeout().toMillis() / 4);
    scheduler.scheduleWithFixedDelay(this::expireIdleStreams, idleSweep, idleSweep, TimeUnit.MILLISECONDS);
    if (settings.adapters().copyScaling()) {
      long tick = settings.copies().tick().toMillis();
      scheduler.scheduleWithFixedDelay(parts.copyScaler()::tick, tick, tick, TimeUnit.MILLISECONDS);
    }
    Duration scraperSilence = Duration.ofMillis(Math.max(5_000, 20 * settings.scrape().interval().toMillis()));
    healthWatch = new HealthWatch(parts.streams().vitals().watch("the metrics scraper", scraper::lastTickMillis,
        scraperSilence), health).start(1_000);
    health.start(new InetSocketAddress(l.bindHost(), l.healthPort()));
    grpc = NettyServerBuilder.forAddress(new InetSocketAddress(l.bindHost(), l.grpcPort()))
        .addService(new ExtProcService(parts.streams()))
        .permitKeepAliveTime(l.keepAlivePermit().toMillis(), TimeUnit.MILLISECONDS)
        .build()
        .start();
    // One virtual thread per connection: a client that connects and never finishes its request holds only its own
    // thread, so scrapes are served whatever slow or idle clients do (a small pool would block the acceptor).
    metricsServer = HTTPServer.builder().hostname(l.bindHost()).port(l.metricsPort())
        .executorService(metricsExecutor)
        .registry(parts.metrics().registry())
        .authenticator(AdminHandler.authenticator(l.admin()))
        .defaultHandler(new AdminHandler(parts.adapters(), parts.datastore(), parts.status(),
            new PoolLoadReport(parts.datastore(), parts.flow()), l.admin())).buildAndStart();
    serving = true;
    health.setReady(parts.datastore().loaded());
    LOG.info("EPP {}: ext_proc on {}:{}, health on {}, metrics on {} ({}); scheduling {} ({})",
        parts.datastore().loaded() ? "ready" : "listening (ready once the cluster's objects are listed)",
        l.bindHost(), grpc.getPort(), health.port(), metricsServer.getPort(), l.admin(), parts.profile().describe(),
        settings.scheduling().source());
  }

  public int grpcPort() {
    return grpc.getPort();
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

  /** Stops taking traffic (readiness first, so the proxy drains), lets open streams finish for a grace period, stops. */
  @Override
  public void close() {
    if (serving) {
      LOG.info("EPP stopping: readiness off, draining open streams");
    }
    serving = false;
    health.setReady(false);
    config.close();
    if (grpc != null) {
      grpc.shutdown();
      try {
        if (!grpc.awaitTermination(settings.listen().shutdownGrace().toMillis(), TimeUnit.MILLISECONDS)) {
          grpc.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        grpc.shutdownNow();
      }
    }
    scraper.close();
    scheduler.shutdownNow();
    flowDispatcher.shutdownNow();
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
  }

  private static ScheduledExecutorService daemons(String name) {
    return Executors.newScheduledThreadPool(1, r -> daemon(r, name));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
