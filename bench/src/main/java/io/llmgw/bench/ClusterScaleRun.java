package io.llmgw.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.llmgw.extproc.Epp;
import io.llmgw.extproc.EppSettings;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.control.cluster.Kinds;
import io.llmgw.extproc.state.Topology;
import io.llmgw.scraper.ScrapeSettings;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One EPP serving a whole namespace: P pools × N pods × R routes in fabric8's mock API server, watched through real
 * informers. Reports the time from start to the first complete view, the heap the EPP holds for it, how long one
 * rebuild of the view takes at that size, and how soon a deleted pod is out of picking. Usage: [pools] [pods per pool]
 * [routes]; defaults 100 10 100. Pods sit on 127.1.x.y, where nothing listens: scrapes fail fast and rarely (every 10
 * s here), so the numbers are the control loop's, not the scraper's (ScrapeLoadRun measures that).
 */
public final class ClusterScaleRun {
  public static void main(String[] args) throws Exception {
    int pools = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int podsPerPool = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int routes = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init(InetAddress.getByName("127.0.0.1"), 0);
    try (KubernetesClient client = server.createClient()) {
      long t0 = System.nanoTime();
      populate(client, pools, podsPerPool, routes);
      System.out.printf(Locale.ROOT, "created %d pools, %d pods, %d routes in %.1f s%n", pools, pools * podsPerPool,
          routes, (System.nanoTime() - t0) / 1e9);
      long before = heapAfterGc();
      SourceSettings.Cluster cluster = SourceSettings.Cluster.defaults("scale", "bench").withLeaderElection(false);
      EppSettings settings = EppSettings.defaults(cluster).onLoopbackEphemeralPorts()
          .withScrape(ScrapeSettings.defaults().withInterval(Duration.ofSeconds(10)), Duration.ofSeconds(20));
      int expected = pools * podsPerPool;
      long start = System.nanoTime();
      try (Epp epp = Epp.start(settings, Clock.systemUTC(), client)) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (epp.datastore().topology().addresses().size() < expected && System.nanoTime() < deadline) {
          Thread.sleep(5); // a load run waiting for its subject, not a test synchronisation
        }
        double startSeconds = (System.nanoTime() - start) / 1e9;
        long held = heapAfterGc() - before;
        double rebuildMs = rebuildMillis(epp.datastore().topology());
        Histogram podGone = podDeletionLatency(client, epp, Math.min(50, expected));
        System.out.println();
        System.out.println(
            "| pools | pods | routes | first complete view | EPP heap for it | one rebuild | pod deleted → out of"
                + " picking p50 / p99 / max |");
        System.out.println("|---|---|---|---|---|---|---|");
        System.out.printf(Locale.ROOT, "| %d | %d | %d | %.2f s | %.1f MiB | %.2f ms | %.1f / %.1f / %.1f ms |%n",
            pools, expected, routes, startSeconds, held / 1048576.0, rebuildMs,
            podGone.getValueAtPercentile(50) / 1000.0, podGone.getValueAtPercentile(99) / 1000.0,
            podGone.getMaxValue() / 1000.0);
      }
    } finally {
      server.destroy();
    }
    // The mock server's Vert.x sometimes keeps a non-daemon thread after destroy(); a load run must end regardless.
    System.exit(0);
  }

  private static void populate(KubernetesClient client, int pools, int podsPerPool, int routes) {
    var serialization = client.getKubernetesSerialization();
    for (int p = 0; p < pools; p++) {
      client.genericKubernetesResources(Kinds.POOL).inNamespace("scale").resource(serialization.unmarshal("""
          apiVersion: inference.networking.k8s.io/v1
          kind: InferencePool
          metadata: {name: pool-%d, namespace: scale}
          spec: {selector: {matchLabels: {pool: p%d}}, targetPorts: [{number: 8000}]}
          """.formatted(p, p), GenericKubernetesResource.class)).create();
      for (int i = 0; i < podsPerPool; i++) {
        int n = p * podsPerPool + i;
        Pod pod = new PodBuilder().withNewMetadata().withName("pod-" + n).withNamespace("scale")
            .withLabels(Map.of("pool", "p" + p, "app", "vllm")).endMetadata()
            .withNewStatus().withPodIP("127.1." + (n / 250) + "." + (1 + n % 250)).withPhase("Running")
            .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build();
        client.pods().inNamespace("scale").resource(pod).create();
      }
    }
    for (int r = 0; r < routes; r++) {
      client.genericKubernetesResources(Kinds.ROUTE).inNamespace("scale").resource(serialization.unmarshal("""
          apiVersion: inference.x-k8s.io/v1alpha1
          kind: LLMRoute
          metadata: {name: route-%d, namespace: scale}
          spec: {backendRefs: [{name: pool-%d}], adapter: {name: adapter-%d, priority: 0}}
          """.formatted(r, r % pools, r), GenericKubernetesResource.class)).create();
    }
  }

  private static double rebuildMillis(Topology current) {
    int rounds = 50;
    long t = System.nanoTime();
    for (int i = 0; i < rounds; i++) {
      Topology.of(current.config());
    }
    return (System.nanoTime() - t) / 1e6 / rounds;
  }

  /** Deletes pods one at a time; for each, the time until the EPP's view no longer has its address. */
  private static Histogram podDeletionLatency(KubernetesClient client, Epp epp, int count) throws Exception {
    Histogram h = new Histogram(60_000_000, 3);
    for (int n = 0; n < count; n++) {
      String address = "127.1." + (n / 250) + "." + (1 + n % 250) + ":8000";
      CountDownLatch gone = new CountDownLatch(1);
      epp.datastore().onChange(t -> {
        if (!t.addresses().contains(address)) {
          gone.countDown();
        }
      });
      long t = System.nanoTime();
      client.pods().inNamespace("scale").withName("pod-" + n).delete();
      if (!gone.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("pod " + address + " still picked 10 s after its deletion");
      }
      h.recordValue((System.nanoTime() - t) / 1000);
    }
    return h;
  }

  private static long heapAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100); // let the collector finish before reading the heap
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
