package io.llmgw.extproc;

import io.grpc.Server;
import io.llmgw.adapters.AdapterManager;
import io.llmgw.adapters.CopyScaler;
import io.llmgw.adapters.CopySettings;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.llmgw.api.ConfigException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.llmgw.extproc.control.ConfigSource;
import io.llmgw.extproc.control.FileConfigSource;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.control.cluster.ClusterConfigSource;
import io.llmgw.extproc.flow.FlowControl;
import io.llmgw.extproc.latency.LatencyTracker;
import io.llmgw.extproc.observe.AdminHandler;
import io.llmgw.extproc.observe.FlowMetrics;
import io.llmgw.extproc.observe.GatewayStatus;
import io.llmgw.scraper.ScrapeListener;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.observe.HealthServer;
import io.llmgw.extproc.routing.RequestRouter;
import io.llmgw.extproc.routing.Rollouts;
import io.llmgw.extproc.server.ExtProcService;
import io.llmgw.extproc.server.StreamDeps;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.picker.EndpointPicker;
import io.llmgw.picker.Policies;
import io.llmgw.picker.Policy;
import io.llmgw.picker.PrefixHasher;
import io.llmgw.picker.SaturationDetector;
import io.llmgw.scraper.MetricsScraper;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Endpoint Picker: ext_proc, health and metrics servers over a datastore fed by a file or a cluster, and
 * scraping. A file is loaded before any port is opened, so a bad file stops start-up without side effects; in a
 * cluster the ports open at once and readiness waits for the informers' first lists.
 */
public final class Epp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Epp.class);

  private final ScheduledExecutorService scheduler;
  private final MetricsScraper scraper;
  private final Datastore datastore;
  private final EppMetrics metrics;
  private final ConfigSource config;
  /** The Kubernetes client this EPP made itself (cluster mode without one given), closed with it. */
  private final KubernetesClient ownClient;
  private final StreamDeps streamDeps;
  private final AdapterManager adapters;
  private final CopyScaler copyScaler;
  private final CopySettings copies;
  private final java.util.concurrent.ExecutorService flowDispatcher;
  private final FlowControl flow;
  private final LatencyTracker latency;
  private final GatewayStatus status;
  private Server grpc;
  private HealthServer health;
  private HTTPServer metricsServer;
  /** Readiness needs both: routes and pods loaded, and the ext_proc server listening. */
  private volatile boolean serving;

  private Epp(EppSettings s, Clock clock, KubernetesClient givenClient) {
    scheduler = Executors.newScheduledThreadPool(1, r -> {
      Thread t = new Thread(r, "epp-scheduler");
      t.setDaemon(true);
      return t;
    });
    flowDispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "epp-flow");
      t.setDaemon(true);
      return t;
    });
    SaturationDetector saturation = s.saturation().detector(clock);
    metrics = new EppMetrics();
    FlowControl[] flowRef = new FlowControl[1]; // the scraper exists before flow control, which needs its datastore
    scraper = new MetricsScraper(s.scrape(), scheduler, clock, new ScrapeListener() {
      @Override
      public void scraped(String address, int skipped) {
        metrics.scraped(address, skipped);
        if (flowRef[0] != null) {
          flowRef[0].signal(); // fresh metrics: a waiting request may fit now
        }
      }

      @Override
      public void failed(String address, String what, String error) {
        metrics.failed(address, what, error);
      }
    });
    datastore = new Datastore(scraper);
    FlowMetrics flowMetrics = new FlowMetrics(metrics.registry());
    flow = new FlowControl(s.flow(), saturation, datastore, clock, flowDispatcher, scheduler, flowMetrics);
    flowRef[0] = flow;
    latency = new LatencyTracker();
    datastore.onChange(t -> latency.retain(t.config().routes(), t.addresses()));
    metrics.watch(datastore, saturation, clock);
    Policy policy = switch (s.policy()) {
      case SEED -> Policies.seed(s.adapterPendingThreshold(), ThreadLocalRandom::current);
      case SCORERS -> Policies.scorers(ThreadLocalRandom::current);
      case ROUND_ROBIN -> Policies.roundRobin();
      case RANDOM -> Policies.random(ThreadLocalRandom::current);
      case LEAST_REQUEST -> Policies.leastRequest(ThreadLocalRandom::current);
    };
    EndpointPicker picker = new EndpointPicker(policy, clock, s.staleAfter(), EndpointPicker.DEFAULT_MAX_FALLBACKS);
    datastore.onChange(t -> {
      picker.retainOnly(t.addresses());
      datastore.inFlight().forgetIdleExcept(t.addresses());
      if (health != null) {
        health.setReady(serving);
      }
    });
    PrefixHasher hasher = s.policy() == EppSettings.PolicyName.SCORERS ? new PrefixHasher() : null;
    adapters = new AdapterManager(s.adapters().runtime(), s.adapters(), clock,
        metrics);
    metrics.watchAdapters(adapters, datastore);
    copies = new CopySettings(2, Duration.ofMinutes(5), 10, s.adapterPendingThreshold(), Duration.ofSeconds(10));
    copyScaler = new CopyScaler(adapters, datastore::loadableAdapters, copies, clock);
    Rollouts rollouts = new Rollouts(adapters, datastore, scheduler);
    datastore.onChange(rollouts::onChange);
    RequestRouter router = new RequestRouter(datastore, picker, saturation, hasher, ThreadLocalRandom::current,
        adapters, rollouts, flow, latency, clock);
    status = new GatewayStatus(datastore, saturation, flow, latency);
    FlowMetrics.watch(metrics.registry(), flow, status);
    streamDeps = new StreamDeps(router, datastore, metrics, s.maxBodyBytes(), s.headerCarriesFallbacks(), flow,
        latency);
    switch (s.source()) {
      case SourceSettings.File f -> {
        ownClient = null;
        config = new FileConfigSource(f, scheduler, datastore::apply, e -> metrics.configRejected());
      }
      case SourceSettings.Cluster c -> {
        ownClient = givenClient == null ? new KubernetesClientBuilder().build() : null;
        ClusterConfigSource cluster = new ClusterConfigSource(givenClient == null ? ownClient : givenClient, c,
            datastore, clock);
        metrics.watchCluster(cluster);
        config = cluster;
      }
    }
  }

  /** File mode, or cluster mode with a client configured from the environment (in-cluster or kubeconfig). */
  public static Epp start(EppSettings settings, Clock clock) throws IOException, ConfigException {
    return start(settings, clock, null);
  }

  /** @param client the Kubernetes client for cluster mode (not closed by the EPP); null to make one */
  public static Epp start(EppSettings settings, Clock clock, KubernetesClient client)
      throws IOException, ConfigException {
    Epp epp = new Epp(settings, clock, client);
    try {
      epp.config.start();
      epp.startServing(settings);
      return epp;
    } catch (IOException | ConfigException | RuntimeException e) {
      epp.close();
      throw e;
    }
  }

  private void startServing(EppSettings s) throws IOException {
    scraper.start();
    scheduler.scheduleWithFixedDelay(() -> adapters.reap(
        datastore.states(List.copyOf(datastore.topology().poolsByKey().values()))), 7, 7, TimeUnit.MINUTES);
    if (s.adapters().copyScaling()) {
      scheduler.scheduleWithFixedDelay(copyScaler::tick, copies.tick().toMillis(), copies.tick().toMillis(),
          TimeUnit.MILLISECONDS);
    }
    health = new HealthServer(new InetSocketAddress(s.bindHost(), s.healthPort()));
    grpc = NettyServerBuilder.forAddress(new InetSocketAddress(s.bindHost(), s.grpcPort()))
        .addService(new ExtProcService(streamDeps))
        .permitKeepAliveTime(10, TimeUnit.SECONDS)
        .build()
        .start();
    metricsServer = HTTPServer.builder().hostname(s.bindHost()).port(s.metricsPort()).registry(metrics.registry())
        .defaultHandler(new AdminHandler(adapters, datastore, status)).buildAndStart();
    serving = true;
    health.setReady(datastore.loaded());
    LOG.info("EPP {}: ext_proc on {}:{}, health on {}, metrics on {}, policy {}",
        datastore.loaded() ? "ready" : "listening (ready once the cluster's objects are listed)", s.bindHost(),
        grpc.getPort(), health.port(), metricsServer.getPort(), s.policy());
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
    return datastore;
  }

  /** Pools, routes and objectives as {@code ./llmgw status} shows them. */
  public GatewayStatus.Report status() {
    return status.report();
  }

  public ConfigSource configSource() {
    return config;
  }

  public void awaitTermination() throws InterruptedException {
    grpc.awaitTermination();
  }

  /** Stops taking traffic (readiness first, so the proxy drains), lets open streams finish for up to 5 s, then stops. */
  @Override
  public void close() {
    if (serving) {
      LOG.info("EPP stopping: readiness off, draining open streams");
    }
    serving = false;
    if (health != null) {
      health.setReady(false);
    }
    config.close();
    if (grpc != null) {
      grpc.shutdown();
      try {
        if (!grpc.awaitTermination(5, TimeUnit.SECONDS)) {
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
    }
    if (health != null) {
      health.close();
    }
  }
}
