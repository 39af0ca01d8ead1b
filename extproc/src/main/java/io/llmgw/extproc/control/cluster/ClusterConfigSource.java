package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.llmgw.api.PoolKey;
import io.llmgw.extproc.control.ConfigSource;
import io.llmgw.extproc.control.SourceSettings;
import io.llmgw.extproc.state.Datastore;
import io.llmgw.extproc.state.PoolView;
import io.llmgw.picker.EndpointState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's control loop: shared informers on InferencePools, LLMRoutes, InferenceObjectives (GIE's and
 * llm-d's), llm-d's InferenceModelRewrites, TenantBudgets and Pods of one
 * namespace keep a {@link ClusterStore}; every change is folded into one new configuration for the datastore, the same
 * shape file mode produces. Bursts of events coalesce into one rebuild, and a pod leaving is out of picking as soon as
 * its event arrives. A kind whose CRD is not installed is logged and retried, never fatal; readiness waits for pools,
 * routes and pods only, so InferenceObjective, InferenceModelRewrite and TenantBudget stay optional (until budgets are
 * listed, tenants have no limits).
 */
public final class ClusterConfigSource implements ConfigSource {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterConfigSource.class);

  private final KubernetesClient client;
  private final SourceSettings.Cluster settings;
  private final Datastore datastore;
  private final String namespace;
  private final ClusterStore store;
  private final ScheduledExecutorService loop;
  private final ScheduledExecutorService status;
  private final AtomicBoolean rebuildQueued = new AtomicBoolean();
  private final AtomicBoolean statusQueued = new AtomicBoolean();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final WatchProblems problems;
  private final RouteStatusWriter statusWriter;
  private final LeaderElection election;
  private final AtomicLong statusPasses = new AtomicLong();
  private final AtomicLong statusWrites = new AtomicLong();
  private volatile boolean synced;
  private volatile boolean closed;

  public ClusterConfigSource(KubernetesClient client, SourceSettings.Cluster settings, Datastore datastore,
      Clock clock) {
    this.client = client;
    this.settings = settings;
    this.datastore = datastore;
    this.namespace = settings.namespace() != null ? settings.namespace()
        : client.getNamespace() != null ? client.getNamespace() : "default";
    this.store = new ClusterStore(!settings.poolLabels().isEmpty());
    this.problems = new WatchProblems(namespace, String.valueOf(client.getMasterUrl()));
    this.loop = Executors.newSingleThreadScheduledExecutor(daemon("cluster-control-loop"));
    this.status = Executors.newSingleThreadScheduledExecutor(daemon("route-status-writer"));
    this.statusWriter = new RouteStatusWriter(client, store, this::endpoints, clock);
    this.election = settings.leaderElection()
        ? new LeaderElection(client, settings, namespace, this::writeStatusSoon, status)
        : null;
  }

  @Override
  public void start() {
    LOG.info(
        "watching namespace {} at {} for InferencePools{}, LLMRoutes, InferenceObjectives, InferenceModelRewrites, "
            + "TenantBudgets and Pods",
        namespace,
        client.getMasterUrl(), settings.poolLabels().isEmpty() ? "" : " labelled " + settings.poolLabels());
    var pools = client.genericKubernetesResources(Kinds.POOL).inNamespace(namespace);
    SharedIndexInformer<GenericKubernetesResource> poolInformer = settings.poolLabels().isEmpty()
        ? pools.runnableInformer(0)
        : pools.withLabels(settings.poolLabels()).runnableInformer(0);
    List<CompletableFuture<Void>> required = new ArrayList<>();
    required.add(watch(poolInformer, "InferencePool", store::putPool, store::removePool));
    required.add(watch(generic(Kinds.ROUTE), "LLMRoute", store::putRoute, store::removeRoute));
    watch(generic(Kinds.OBJECTIVE), "InferenceObjective", store::putObjective, store::removeObjective);
    watch(generic(Kinds.BUDGET), "TenantBudget", store::putBudget, store::removeBudget);
    watch(generic(Kinds.LLMD_OBJECTIVE), "InferenceObjective (llm-d.ai)", store::putLlmdObjective,
        store::removeLlmdObjective);
    watch(generic(Kinds.LLMD_REWRITE), "InferenceModelRewrite", store::putRewrite, store::removeRewrite);
    required.add(watch(client.pods().inNamespace(namespace).runnableInformer(0), "Pod", store::putPod,
        store::removePod));
    CompletableFuture.allOf(required.toArray(CompletableFuture[]::new)).thenRun(() -> {
      synced = true;
      LOG.info("initial lists of namespace {} received", namespace);
      rebuildSoon();
    });
    if (election != null) {
      election.start();
    }
    status.scheduleWithFixedDelay(this::writeStatusIfLeader, settings.statusInterval().toMillis(),
        settings.statusInterval().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether this replica currently writes status; every replica routes either way. */
  public boolean leading() {
    return !closed && (election == null || election.isLeader());
  }

  /** The namespace's pools, routes and pods have been listed once. */
  public boolean synced() {
    return synced;
  }

  /** Status checks this replica completed as leader. */
  public long statusPasses() {
    return statusPasses.get();
  }

  /** Route statuses this replica wrote (each a change). */
  public long statusWrites() {
    return statusWrites.get();
  }

  private SharedIndexInformer<GenericKubernetesResource> generic(ResourceDefinitionContext kind) {
    return client.genericKubernetesResources(kind).inNamespace(namespace).runnableInformer(0);
  }

  private <T> CompletableFuture<Void> watch(SharedIndexInformer<T> informer, String kind, Consumer<T> put,
      Consumer<T> remove) {
    informer.addEventHandler(new ResourceEventHandler<T>() {
      @Override
      public void onAdd(T obj) {
        put.accept(obj);
        rebuildSoon();
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        put.accept(newObj);
        rebuildSoon();
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        remove.accept(obj);
        rebuildSoon();
      }
    });
    informer.exceptionHandler((started, error) -> {
      if (!closed) {
        problems.report(kind, error);
      }
      return true;
    });
    informers.add(informer);
    return informer.start().toCompletableFuture().thenRun(() -> problems.cleared(kind));
  }

  private void rebuildSoon() {
    if (synced && rebuildQueued.compareAndSet(false, true)) {
      loop.execute(this::rebuild);
    }
  }

  private void rebuild() {
    rebuildQueued.set(false);
    try {
      datastore.apply(store.config());
    } catch (RuntimeException e) {
      LOG.error("cannot apply the cluster's configuration", e);
    }
    writeStatusSoon();
  }

  private void writeStatusSoon() {
    if (statusQueued.compareAndSet(false, true)) {
      status.execute(this::writeStatusIfLeader);
    }
  }

  private void writeStatusIfLeader() {
    statusQueued.set(false);
    if (!synced || !leading()) {
      return;
    }
    try {
      statusWrites.addAndGet(statusWriter.writeChanged());
      statusPasses.incrementAndGet();
    } catch (RuntimeException e) {
      LOG.warn("route status check failed: {}", e.toString());
    }
  }

  private RouteConditions.Endpoints endpoints(RouteVerdict v) {
    int total = 0;
    int healthy = 0;
    boolean modelsKnown = false;
    Set<String> unserved = new LinkedHashSet<>(v.models());
    Map<PoolKey, PoolView> pools = datastore.topology().poolsByKey();
    for (String pool : v.pools()) {
      PoolView view = pools.get(new PoolKey(v.namespace(), pool));
      if (view == null) {
        continue;
      }
      for (EndpointState e : datastore.states(List.of(view))) {
        total++;
        if (e.scrapeHealthy()) {
          healthy++;
          modelsKnown |= !e.metrics().baseModels().isEmpty();
          unserved.removeIf(e::serves);
        }
      }
    }
    return new RouteConditions.Endpoints(total, healthy, modelsKnown, List.copyOf(unserved));
  }

  @Override
  public void close() {
    closed = true;
    if (election != null) {
      election.close();
    }
    informers.forEach(SharedIndexInformer::stop);
    loop.shutdownNow();
    status.shutdownNow();
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
