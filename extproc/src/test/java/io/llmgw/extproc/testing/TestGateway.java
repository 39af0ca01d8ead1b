package io.llmgw.extproc.testing;

import io.llmgw.api.ConfigException;
import io.llmgw.api.ConfigFileLoader;
import io.llmgw.api.FileModeYaml;
import io.llmgw.extproc.Components;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.observe.EppMetrics;
import io.llmgw.extproc.request.Director;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.testing.ManualClock;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The EPP's parts exactly as {@link Components} wires them, over fakes instead of the world: pods whose metrics the
 * test reports, an adapter runtime whose loads the test finishes, a clock the test moves, and flow control
 * dispatching on the calling thread. No sockets.
 */
public final class TestGateway implements AutoCloseable {
  public static final int PORT = 8000;

  public final ManualClock clock = new ManualClock(Instant.parse("2026-11-23T00:00:00Z"));
  public final FakeScrapes scrapes = new FakeScrapes(clock);
  public final ScriptedRuntime runtime = new ScriptedRuntime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "test-gateway");
    t.setDaemon(true);
    return t;
  });
  public final Components parts;

  /** @param routes routes (and objectives) over the pool {@code pool}, whose pods are {@link #address} 1…{@code pods} */
  public TestGateway(EppSettings settings, int pods, String routes) {
    this(settings, pods, routes, new EppMetrics(1));
  }

  /** @param metrics where the parts count; {@code new EppMetrics(n)} times the plugins of one request in n */
  public TestGateway(EppSettings settings, int pods, String routes, EppMetrics metrics) {
    parts = Components.wire(settings, clock, clock, scheduler, Runnable::run, scrapes, metrics, runtime);
    apply(pods, routes);
  }

  public TestGateway(int pods, String routes) {
    this(settings(), pods, routes);
  }

  public static EppSettings settings() {
    return EppSettings.defaults(Path.of("test.yaml"));
  }

  /** {@code 127.0.0.n:8000}: pod n of the pool (nothing listens; nothing connects). */
  public static String address(int n) {
    return "127.0.0." + n + ":" + PORT;
  }

  /** Replaces the configuration: the pool of {@code pods} pods and these routes. */
  public void apply(int pods, String routes) {
    List<String> addresses = new ArrayList<>();
    for (int i = 1; i <= pods; i++) {
      addresses.add(address(i));
    }
    String yaml = FileModeYaml.pool("pool", "vllm", PORT) + FileModeYaml.pods("pod", "vllm", addresses)
        + (routes.isBlank() ? "" : FileModeYaml.SEPARATOR + routes);
    try {
      parts.datastore().apply(ConfigFileLoader.parse("test.yaml", yaml));
    } catch (ConfigException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** Every pod reports an idle queue, holding {@code adapters}. */
  public void allIdle(int pods, String... adapters) {
    for (int i = 1; i <= pods; i++) {
      scrapes.report(address(i), 0, 0, 0.1, java.util.Set.of(adapters));
    }
  }

  public Director director() {
    return parts.streams().director();
  }

  public Datastore datastore() {
    return parts.datastore();
  }

  /** How often the plugin of this type ran at this extension point, by the EPP's per-plugin duration histogram. */
  public long pluginCalls(String extensionPoint, String pluginType) {
    for (MetricSnapshot m : parts.metrics().registry().scrape()) {
      if (m instanceof HistogramSnapshot h && h.getMetadata().getName().equals("llmgw_plugin_duration_seconds")) {
        return h.getDataPoints().stream()
            .filter(d -> d.getLabels().get("extension_point").equals(extensionPoint)
                && d.getLabels().get("plugin_type").equals(pluginType))
            .mapToLong(HistogramSnapshot.HistogramDataPointSnapshot::getCount).sum();
      }
    }
    return 0;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
