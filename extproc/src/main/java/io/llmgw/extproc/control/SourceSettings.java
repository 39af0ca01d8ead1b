package io.llmgw.extproc.control;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Where the EPP learns pools, routes, objectives and pods: a YAML file, or the Kubernetes API. */
public sealed interface SourceSettings {

  /** File mode: the file is polled every {@code pollInterval}. */
  record File(Path path, Duration pollInterval) implements SourceSettings {}

  /**
   * Cluster mode.
   *
   * @param namespace the namespace watched; null means the client's own (the pod's service-account namespace)
   * @param poolLabels only InferencePools carrying these labels are served (empty: every pool of the namespace), so
   *     several EPP deployments can split one namespace
   * @param leaderElection whether replicas elect one status writer through a Lease; off for a single replica
   * @param identity this replica's name in the Lease (the pod name in a cluster)
   * @param statusInterval how often the leader re-checks route status (readiness follows pod health)
   */
  record Cluster(String namespace, Map<String, String> poolLabels, boolean leaderElection, String leaseName,
      String identity, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod, Duration statusInterval)
      implements
        SourceSettings {
    public Cluster {
      poolLabels = Map.copyOf(poolLabels);
      if (renewDeadline.compareTo(leaseDuration) >= 0) {
        throw new IllegalArgumentException("the lease renew deadline must be shorter than the lease duration");
      }
      if (retryPeriod.compareTo(renewDeadline) >= 0) {
        throw new IllegalArgumentException("the lease retry period must be shorter than the renew deadline");
      }
    }

    /** client-go's and GIE's lease timings: 15 s lease, 10 s renew deadline, 2 s retry. */
    public static Cluster defaults(String namespace, String identity) {
      return new Cluster(namespace, Map.of(), true, "llmgw-epp", identity, Duration.ofSeconds(15),
          Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(5));
    }

    public Cluster withPoolLabels(Map<String, String> labels) {
      return new Cluster(namespace, labels, leaderElection, leaseName, identity, leaseDuration, renewDeadline,
          retryPeriod, statusInterval);
    }

    public Cluster withLeaseTimings(Duration lease, Duration renew, Duration retry, Duration status) {
      return new Cluster(namespace, poolLabels, leaderElection, leaseName, identity, lease, renew, retry, status);
    }

    public Cluster withLeaseName(String name) {
      return new Cluster(namespace, poolLabels, leaderElection, name, identity, leaseDuration, renewDeadline,
          retryPeriod, statusInterval);
    }

    public Cluster withLeaderElection(boolean on) {
      return new Cluster(namespace, poolLabels, on, leaseName, identity, leaseDuration, renewDeadline, retryPeriod,
          statusInterval);
    }
  }
}
