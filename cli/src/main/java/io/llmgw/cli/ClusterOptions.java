package io.llmgw.cli;

import io.llmgw.extproc.control.SourceSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Option;

/** Cluster mode: the namespace, the pools served, and the Lease the replicas elect their status writer with. */
final class ClusterOptions {
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

  SourceSettings.Cluster cluster() {
    return SourceSettings.Cluster.defaults(namespace, identity + "-" + UUID.randomUUID().toString().substring(0, 8))
        .withPoolLabels(poolSelector).withLeaderElection(!noLeaderElection).withLeaseName(leaseName);
  }
}
