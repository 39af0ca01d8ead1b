package io.llmgw.extproc.control.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.llmgw.extproc.control.SourceSettings;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's part in electing the status writer through a {@code coordination.k8s.io/v1} Lease. Every replica keeps
 * serving traffic whatever the outcome (active-active); leadership only decides who writes status. A replica that
 * loses the lease stands again, so the group always converges on one leader.
 */
final class LeaderElection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  private final KubernetesClient client;
  private final SourceSettings.Cluster settings;
  private final String namespace;
  private final Runnable onStart;
  private final ScheduledExecutorService retry;
  private volatile boolean leader;
  private volatile boolean closed;
  private volatile CompletableFuture<?> running;

  LeaderElection(KubernetesClient client, SourceSettings.Cluster settings, String namespace, Runnable onStart,
      ScheduledExecutorService retry) {
    this.client = client;
    this.settings = settings;
    this.namespace = namespace;
    this.onStart = onStart;
    this.retry = retry;
  }

  boolean isLeader() {
    return leader;
  }

  void start() {
    if (closed) {
      return;
    }
    var config = new LeaderElectionConfigBuilder()
        .withName(settings.leaseName())
        .withLock(new LeaseLock(namespace, settings.leaseName(), settings.identity()))
        .withLeaseDuration(settings.leaseDuration())
        .withRenewDeadline(settings.renewDeadline())
        .withRetryPeriod(settings.retryPeriod())
        .withReleaseOnCancel(true)
        .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading,
            id -> LOG.info("lease {}/{}: leader is now {}", namespace, settings.leaseName(), id)))
        .build();
    running = client.leaderElector().withConfig(config).build().start();
    running.whenComplete((ok, error) -> {
      if (!closed) {
        retry.schedule(this::start, settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
      }
    });
  }

  private void startedLeading() {
    LOG.info("{} leads {}/{}: writing LLMRoute status", settings.identity(), namespace, settings.leaseName());
    leader = true;
    onStart.run();
  }

  private void stoppedLeading() {
    if (leader) {
      LOG.info("{} no longer leads {}/{}", settings.identity(), namespace, settings.leaseName());
    }
    leader = false;
  }

  /** Gives the lease up at once (release on cancel), so another replica need not wait for it to expire. */
  @Override
  public void close() {
    closed = true;
    CompletableFuture<?> r = running;
    if (r != null) {
      r.cancel(true);
    }
    leader = false;
  }
}
